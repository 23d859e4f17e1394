package redact

import (
	"strconv"
	"strings"
	"testing"
)

// Passwords given as command-line flags were stored, searchable and shown
// in full (issue 19): each of these must lose its password, in plain text
// and inside a JSON string (how tool input reaches the store).
func TestCommandLinePasswords(t *testing.T) {
	for _, c := range []struct{ in, secret string }{
		{"mysql -u root -pS3cretPass! mydb", "S3cretPass!"},
		{"mysql -u root -pPASSWORD", "PASSWORD"},
		{"mysql -h db -u app -p'two words pw' app", "two words pw"},
		{`mysql -u root -p"Hunter2xyz" db`, "Hunter2xyz"},
		{"mysqldump -uroot -phunter2 --all-databases > all.sql", "hunter2"},
		{"cd /srv && mysql -u root -ptrustno1 -e 'show tables'", "trustno1"},
		{"mysql --password=S3cretPass! -u root", "S3cretPass!"},
		{"mysql --password=hunter -u root", "hunter"},
		{"mysqldump --password 'S3cret99' db", "S3cret99"},
		{"docker login --password t0ps3cret registry", "t0ps3cret"},
		{"PGPASSWORD=S3cretPass psql -h db -U app", "S3cretPass"},
		{"PGPASSWORD=hunter2 psql", "hunter2"},
		{"export PGPASSWORD='Zx9!long'", "Zx9!long"},
		{"sshpass -p 'S3cretPass' ssh user@host", "S3cretPass"},
		{"sshpass -p S3cretPass ssh user@host", "S3cretPass"},
		{"sshpass -pS3cretPass scp f host:", "S3cretPass"},
		{"/usr/bin/mysql -u root -pS3cret db", "S3cret"},
	} {
		out, fs := Redact(c.in)
		if strings.Contains(out, c.secret) || len(fs) == 0 {
			t.Errorf("%q -> %q: the password survived", c.in, out)
		}
		quoted := strconv.Quote(c.in)
		if out, _ := Redact(quoted); strings.Contains(out, c.secret) {
			t.Errorf("JSON %s -> %s: the password survived", quoted, out)
		} else if _, err := strconv.Unquote(out); err != nil {
			t.Errorf("JSON %s -> %s: no longer a valid string (%v)", quoted, out, err)
		}
	}
}

// -p means something else to most commands, and mysql -p alone asks for
// the password: nothing to redact there.
func TestCommandLinePasswordsLeaveOtherFlags(t *testing.T) {
	for _, s := range []string{
		"git log -p HEAD~3", "mkdir -p foo/bar", "ls -p /tmp", "cp -p a b", "ssh -p 2222 host",
		"mysql -u root -p mydb", "mysql -u root -p", "docker run -p 8080:80 nginx",
		"mysql --password --user=root", "tool --password $DB_PASS", "tool --password=${PASS}",
		"see mysqlx -ptest", "git diff -p --stat",
	} {
		if out, fs := Redact(s); len(fs) > 0 {
			t.Errorf("%q -> %q: nothing should be redacted", s, out)
		}
	}
}
