package transcripts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseLineUserString(t *testing.T) {
	e, err := ParseLine([]byte(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"S","timestamp":"2026-02-11T20:36:45.618Z","cwd":"/w/app","gitBranch":"main","version":"2.1.39","message":{"role":"user","content":"Implement X"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != "user" || e.UUID != "u1" || e.ParentUUID != "" || e.SessionID != "S" || e.CWD != "/w/app" || e.GitBranch != "main" {
		t.Fatalf("envelope: %+v", e)
	}
	if e.Timestamp.IsZero() || e.Timestamp.Year() != 2026 || e.Timestamp.Nanosecond() != 618000000 {
		t.Fatalf("timestamp %v", e.Timestamp)
	}
	if !e.StringContent || len(e.Blocks) != 1 || e.PromptText() != "Implement X" || !IsRealPrompt(&e) {
		t.Fatalf("content: %+v", e.Blocks)
	}
}

func TestParseLineAssistantBlocks(t *testing.T) {
	e, err := ParseLine([]byte(`{"type":"assistant","uuid":"a1","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-opus-4-6","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"hi"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la","description":"list"}},{"type":"redacted_thinking","data":"QUJD"}],"usage":{"input_tokens":3,"output_tokens":10,"cache_creation_input_tokens":8037,"cache_read_input_tokens":17842}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.MessageID != "msg_1" || e.RequestID != "req_1" || e.Model != "claude-opus-4-6" {
		t.Fatalf("identity: %+v", e)
	}
	if e.Usage == nil || e.Usage.Total() != 3+10+8037+17842 {
		t.Fatalf("usage %+v", e.Usage)
	}
	if len(e.Blocks) != 4 {
		t.Fatalf("blocks %+v", e.Blocks)
	}
	if e.Blocks[0].Type != BlockThinking || e.Blocks[0].Text != "hmm" {
		t.Fatalf("thinking %+v", e.Blocks[0])
	}
	tu := e.Blocks[2]
	if tu.ToolName != "Bash" || tu.ToolID != "toolu_1" || ToolSummary(&tu) != "ls -la" {
		t.Fatalf("tool_use %+v", tu)
	}
	if e.Blocks[3].Type != BlockRedactedThinking || strings.Contains(e.Blocks[3].Text, "QUJD") {
		t.Fatalf("redacted thinking kept its payload: %+v", e.Blocks[3])
	}
}

func TestParseToolResultShapes(t *testing.T) {
	e, err := ParseLine([]byte(`{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb","is_error":true},{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"one"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"}},{"type":"tool_reference","tool_name":"x"}]}]},"toolUseResult":"User rejected tool use"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !e.IsToolResultOnly() || IsRealPrompt(&e) {
		t.Fatal("tool results are not prompts")
	}
	if b := e.Blocks[0]; b.ToolUseID != "t1" || !b.IsError || b.Text != "a\nb" {
		t.Fatalf("string result %+v", b)
	}
	b := e.Blocks[1]
	if b.IsError || !strings.HasPrefix(b.Text, "one\n[image: image/png") {
		t.Fatalf("array result %q", b.Text)
	}
	if strings.Contains(b.Text, "iVBOR") {
		t.Fatal("base64 payload kept")
	}
}

func TestImageNeverKeepsBase64(t *testing.T) {
	payload := strings.Repeat("QUJD", 300000) // 1.2 MB of base64
	e, err := ParseLine([]byte(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"` + payload + `"}},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	img := e.Blocks[1]
	if img.Type != BlockImage || img.MediaType != "image/jpeg" || img.Size != 900000 || len(img.Text) > 100 {
		t.Fatalf("image %+v", img)
	}
	if doc := e.Blocks[2]; doc.Type != BlockDocument || doc.MediaType != "application/pdf" {
		t.Fatalf("document %+v", doc)
	}
	if e.PromptText() != "look" {
		t.Fatalf("prompt %q", e.PromptText())
	}
}

func TestParseLineLenient(t *testing.T) {
	cases := map[string]string{
		"unknown type":        `{"type":"brand-new-thing","uuid":"x","foo":{"bar":[1,2]}}`,
		"summary as object":   `{"type":"user","uuid":"u","summary":{"nested":true},"message":{"role":"user","content":"still here"}}`,
		"timestamp as number": `{"type":"user","uuid":"u","timestamp":1760000000000,"message":{"role":"user","content":"still here"}}`,
		"content as number":   `{"type":"user","uuid":"u","message":{"role":"user","content":42}}`,
		"bad block":           `{"type":"assistant","uuid":"u","message":{"role":"assistant","content":[{"type":"text","text":5},{"type":"text","text":"ok"}]}}`,
		"duplicate keys":      `{"type":"user","type":"user","uuid":"u","message":{"role":"user","content":"still here"}}`,
		"null everything":     `{"type":null,"uuid":null,"message":null,"toolUseResult":null}`,
	}
	for name, line := range cases {
		t.Run(name, func(t *testing.T) {
			e, err := ParseLine([]byte(line))
			if err != nil {
				t.Fatalf("lenient line rejected: %v", err)
			}
			if strings.Contains(line, "still here") && e.PromptText() != "still here" {
				t.Fatalf("lost the usable part: %+v", e)
			}
			if name == "bad block" && e.JoinedText() != "ok" {
				t.Fatalf("good block dropped: %+v", e.Blocks)
			}
		})
	}
}

func TestParseLineRejectsGarbage(t *testing.T) {
	for _, line := range []string{"", "   ", "not json", "[1,2]", `{"type":"user"`, `"str"`, "{\"a\":\x00}"} {
		if _, err := ParseLine([]byte(line)); err == nil {
			t.Errorf("%q: expected an error", line)
		}
	}
}

func TestInvalidUTF8BecomesValid(t *testing.T) {
	line := []byte("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff\xfe bytes\"}}")
	e, err := ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(e.PromptText()) || !strings.Contains(e.PromptText(), "bytes") {
		t.Fatalf("%q", e.PromptText())
	}
}

func TestSyntheticPrompts(t *testing.T) {
	for _, s := range []string{"<local-command-stdout>x</local-command-stdout>", "[Request interrupted by user for tool use]",
		"<task-notification>x", "<system-reminder>x", "Caveat: The messages below were generated by the user while running local commands. x"} {
		e := Entry{Type: "user", Blocks: []Block{{Type: BlockText, Text: s}}}
		if IsRealPrompt(&e) {
			t.Errorf("%q counted as a prompt", s)
		}
	}
	cmd := "<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>\n<command-args>fast</command-args>"
	if !IsCommandWrapper(cmd) || CleanPrompt(cmd) != "/init fast" {
		t.Fatalf("command wrapper: %q", CleanPrompt(cmd))
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine("  a\n\tb  c ", 10); got != "a b c" {
		t.Fatalf("%q", got)
	}
	if got := OneLine("héllo wörld", 6); got != "héllo…" || utf8.RuneCountInString(got) != 6 {
		t.Fatalf("%q", got)
	}
}

func TestDecodeProjectName(t *testing.T) {
	cases := map[string]string{
		"-home-marco-projects-spotter": "/home/marco/projects/spotter",
		"C--Users-me-x":                "C:/Users/me/x",
	}
	for in, want := range cases {
		if got := DecodeProjectName(in); got != want {
			t.Errorf("%s: %q want %q", in, got, want)
		}
	}
	long := "-" + strings.Repeat("a", 199) + "-1234abcd"
	if got := DecodeProjectName(long); !strings.HasSuffix(got, "…") || strings.Contains(got, "1234abcd") {
		t.Errorf("long name: %q", got)
	}
	if EncodeProjectPath("/Users/me/.config/x") != "-Users-me--config-x" {
		t.Error(EncodeProjectPath("/Users/me/.config/x"))
	}
}

func TestHeadTail(t *testing.T) {
	s := strings.Repeat("é", 5000)
	got := HeadTail(s, 100, 100)
	if !utf8.ValidString(got) || !strings.Contains(got, "omitted") || len(got) > 300 {
		t.Fatalf("%d %q", len(got), got[:50])
	}
	if HeadTail("short", 10, 10) != "short" {
		t.Fatal("short text changed")
	}
}
