package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A config file that cannot be used: the server still starts (so Claude
// Code does not show it as failed), and every tool answers with the error
// and what to do, instead of running on defaults the user did not choose.
func TestBrokenConfigAnswersEveryTool(t *testing.T) {
	ctx := context.Background()
	srv := New(Options{Broken: errors.New("config /x/config.toml:2:10: search.fusion = \"best\": use weighted or rrf")})
	ct, stt := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(toolDescriptions) {
		t.Fatalf("%v tools, %v", len(tools.Tools), err)
	}
	args := map[string]map[string]any{
		"memory_recall": {"query": "x"}, "session_read": {"session_id": "x"},
		"memory_search": {"query": "x"}, "memory_remember": {"content": "x", "type": "fact"},
		"memory_related": {"memory_id": "x"},
		"memory_correct": {"memory_id": "x", "content": "y"}, "memory_forget": {"memory_id": "x", "reason": "y"},
		"memory_ask": {"question": "x"}, "session_save_summary": {"summary": "x"},
	}
	for _, tl := range tools.Tools {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tl.Name, Arguments: args[tl.Name]})
		if err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if !res.IsError || !strings.Contains(text, "config.toml:2:10") || !strings.Contains(text, "cairn config") {
			t.Fatalf("%s: isError=%v %q", tl.Name, res.IsError, text)
		}
	}
}
