package transcripts

import "testing"

// TestToolSummaryInputs pins which input summarises a tool call, in order
// of precedence, including a blank command (which still wins, as "").
func TestToolSummaryInputs(t *testing.T) {
	cases := []struct {
		name, input, want string
	}{
		{"Task", `{"subagent_type":"Explore","description":"find the parser"}`, "Explore: find the parser"},
		{"Agent", `{"description":"look around"}`, "general-purpose: look around"},
		{"Bash", `{"command":"go  test\n ./...","file_path":"x.go"}`, "go test ./..."},
		{"Bash", `{"command":"   ","path":"/tmp"}`, ""},
		{"Read", `{"file_path":"/a/b.go","pattern":"x"}`, "/a/b.go"},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb"}`, "/n.ipynb"},
		{"Grep", `{"pattern":"func main","path":"cmd"}`, "func main in cmd"},
		{"Glob", `{"pattern":"*.go"}`, "*.go"},
		{"WebFetch", `{"url":"https://example.com","prompt":"p"}`, "https://example.com"},
		{"WebSearch", `{"query":"go  generics"}`, "go generics"},
		{"LS", `{"path":"/home"}`, "/home"},
		{"TodoWrite", `{"todos":[{"content":"a"},{"content":"b"}]}`, "2 todos"},
		{"Other", `{"x": 1,  "y": [true]}`, `{"x": 1, "y": [true]}`},
	}
	for _, c := range cases {
		b := Block{Type: BlockToolUse, ToolName: c.name, ToolInput: []byte(c.input)}
		if got := ToolSummary(&b); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.name, c.input, got, c.want)
		}
	}
}
