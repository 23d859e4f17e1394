package cli

import (
	"os"
	"os/exec"
	"testing"
)

// The pager is $CAIRN_PAGER, else $PAGER, else less when installed; set
// to "" or cat it is none.
func TestPagerCommand(t *testing.T) {
	_, lessErr := exec.LookPath("less")
	for _, c := range []struct {
		cairn, pager *string
		want         string
		ok           bool
	}{
		{ptr("most"), ptr("more"), "most", true},
		{nil, ptr("more"), "more", true},
		{ptr(""), ptr("more"), "", false},
		{ptr(" cat "), nil, "", false},
		{nil, ptr("cat"), "", false},
		{nil, nil, defaultPager, lessErr == nil},
	} {
		setOrUnset(t, "CAIRN_PAGER", c.cairn)
		setOrUnset(t, "PAGER", c.pager)
		got, ok := pagerCommand()
		if ok != c.ok || ok && got != c.want {
			t.Errorf("CAIRN_PAGER %v PAGER %v: %q %v, want %q %v", deref(c.cairn), deref(c.pager), got, ok, c.want, c.ok)
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return "(unset)"
	}
	return "\"" + *p + "\""
}

// setOrUnset sets the variable for the test, or unsets it (restored after).
func setOrUnset(t *testing.T, name string, v *string) {
	t.Setenv(name, "") // restores the variable after the test
	if v == nil {
		os.Unsetenv(name)
		return
	}
	t.Setenv(name, *v)
}
