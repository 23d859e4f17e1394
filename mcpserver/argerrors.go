package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK checks every call's arguments against the tool's input schema
// before the handler runs, and its refusals read like a validator wrote
// them ("validating /properties/importance: maximum: 9/1 is greater than
// 5.000000"). argErrors answers out-of-range numbers and overlong lists
// itself, in words, before the SDK sees them, and rewrites whatever else
// the SDK refuses into "<argument>: <what is wrong>".

// argErrors is a receiving middleware for tools/call.
func (s *Server) argErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		if msg := s.outOfRange(call.Params.Name, call.Params.Arguments); msg != "" {
			return errorResult(msg), nil
		}
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError {
			rewriteValidation(r)
		}
		return res, err
	}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// outOfRange checks the arguments against the bounds a tool declares
// (inputSchema's between and atMostItems) and says what is wrong with the
// first one out of them; "" when all are within.
func (s *Server) outOfRange(tool string, raw json.RawMessage) string {
	sch := s.schemas[tool]
	if sch == nil || len(raw) == 0 {
		return ""
	}
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return ""
	}
	names := make([]string, 0, len(sch.Properties))
	for name := range sch.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if msg := boundMessage(name, sch.Properties[name], args[name]); msg != "" {
			return msg
		}
	}
	return ""
}

// boundMessage says how v breaks prop's bounds, or "".
func boundMessage(name string, prop *jsonschema.Schema, v any) string {
	switch x := v.(type) {
	case float64:
		return rangeMessage(name, prop, x)
	case []any:
		if prop.MaxItems != nil && len(x) > *prop.MaxItems {
			return fmt.Sprintf("%s has %d items: pass at most %d.", name, len(x), *prop.MaxItems)
		}
	}
	return ""
}

// rangeMessage says how x falls outside prop's minimum and maximum, or "".
func rangeMessage(name string, prop *jsonschema.Schema, x float64) string {
	lo, hi := prop.Minimum, prop.Maximum
	if (lo == nil || x >= *lo) && (hi == nil || x <= *hi) {
		return ""
	}
	what := "a number"
	if prop.Type == "integer" {
		what = "a whole number"
	}
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("%s is %s, out of range: pass %s from %s to %s.", name, num(x), what, num(*lo), num(*hi))
	case lo != nil:
		return fmt.Sprintf("%s is %s, too small: pass %s of at least %s.", name, num(x), what, num(*lo))
	default:
		return fmt.Sprintf("%s is %s, too large: pass %s of at most %s.", name, num(x), what, num(*hi))
	}
}

// num prints a number as a person would: 9, 2.5, 1000000.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%g", f)
}

// validationRe finds the argument a refusal of the SDK is about and why.
var validationRe = regexp.MustCompile(`validating /properties/([A-Za-z0-9_]+)(?:/[^:]*)?: (.*)$`)

// rewriteValidation turns the SDK's refusal of a call's arguments into
// "<argument>: <reason>. Check the tool's input schema and call it again."
func rewriteValidation(r *mcp.CallToolResult) {
	for _, c := range r.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok || !strings.HasPrefix(tc.Text, `validating "arguments"`) {
			continue
		}
		reason := strings.TrimPrefix(tc.Text, `validating "arguments": `)
		if m := validationRe.FindStringSubmatch(tc.Text); m != nil {
			reason = m[1] + ": " + m[2]
		} else {
			reason = strings.TrimPrefix(reason, "validating root: ")
		}
		reason = strings.NewReplacer(`has type "`, `is a `, `", want "`, `, but must be a `, `"`, ``).Replace(reason)
		tc.Text = "The arguments were refused: " + reason + ". Check the tool's input schema and call it again."
	}
}
