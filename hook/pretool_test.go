package hook

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/memories"
)

func TestCommandWords(t *testing.T) {
	for cmd, want := range map[string][]string{
		"go test ./billing/...":                       {"go test"},
		"cd web && STRIPE_MOCK=1 npm run test:int":    {"STRIPE_MOCK", "npm run"},
		"./scripts/deploy.sh --env staging | tee log": {"scripts/deploy.sh", "deploy.sh", "tee log"},
		"echo hi":     nil,
		"ls -la":      nil,
		"make deploy": {"make deploy"},
	} {
		if got := commandWords(cmd); !reflect.DeepEqual(got, want) {
			t.Errorf("commandWords(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// A memory is tied to a file by its provenance or by naming it, and to a
// command by naming its program and subcommand or a distinctive word;
// never by a word inside a longer name.
func TestToolTargetMatches(t *testing.T) {
	root := "/w/demo"
	mem := func(content string, files ...string) ToolMemory {
		return ToolMemory{Memory: memories.Memory{ID: "m", Content: content}, Files: files}
	}
	ranMem := func(content string, commands ...string) ToolMemory {
		return ToolMemory{Memory: memories.Memory{ID: "m", Content: content}, Commands: commands}
	}
	edit := func(p string) toolTarget {
		return parseToolTarget("Edit", json.RawMessage(`{"file_path":"`+p+`"}`), root)
	}
	bash := func(c string) toolTarget {
		b, _ := json.Marshal(map[string]string{"command": c})
		return parseToolTarget("Bash", b, root)
	}
	for _, c := range []struct {
		name   string
		target toolTarget
		m      ToolMemory
		want   bool
	}{
		{"provenance, relative", edit("/w/demo/billing/round.go"), mem("Invoices round half-even", "billing/round.go"), true},
		{"provenance, absolute", edit("billing/round.go"), mem("Invoices round half-even", "/w/demo/billing/round.go"), true},
		{"names the path", edit("/w/demo/billing/round.go"), mem("billing/round.go rounds half-even"), true},
		{"names the base name", edit("/w/demo/billing/round.go"), mem("Never change round.go without the golden tests"), true},
		{"inside a longer name", edit("/w/demo/billing/round.go"), mem("see around.go"), false},
		{"another file", edit("/w/demo/billing/tax.go"), mem("billing/round.go rounds half-even", "billing/round.go"), false},
		{"short base name", edit("/w/demo/x/a.go"), mem("a.go is generated"), false},
		{"program and subcommand", bash("go test ./billing/..."), mem("Run go test with -count=1: the cache hides the flake"), true},
		{"not inside a longer program", bash("go test ./..."), mem("cargo test is slow"), false},
		{"environment name", bash("STRIPE_MOCK=1 go run ./cmd/pay"), mem("The payments sandbox needs STRIPE_MOCK=1"), true},
		{"script", bash("./scripts/deploy.sh staging"), mem("deploy.sh must run from the repo root"), true},
		{"unrelated command", bash("git status"), mem("The payments sandbox needs STRIPE_MOCK=1"), false},
		// Provenance: the commands the memory's source entries ran.
		{"ran the same script", bash("node build.js --watch"), ranMem("Assets build from their own folder", "cd assets && node build.js"), true},
		{"ran the same subcommand", bash("mix ash.codegen add_identity"), ranMem("Review generated migrations for SQLite", "mix ash.codegen add_index"), true},
		{"ran something else", bash("mix test"), ranMem("Review generated migrations for SQLite", "mix ash.codegen add_index"), false},
		{"a cd alone ties nothing", bash("cd assets"), ranMem("Assets build from their own folder", "cd assets && node build.js"), false},
	} {
		if got := c.target.matches(c.m, root); got != c.want {
			t.Errorf("%s: %+v matches %q: %v, want %v", c.name, c.target, c.m.Content, got, c.want)
		}
	}
}
