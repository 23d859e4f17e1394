package memories

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/internal/english"
)

// A choice among the options Claude offered. Claude often lists options
// ("**Option 1: Vite** (modern, fast, great DX)", "2. **Migrate to
// AudioWorklet** - proper modern solution") and asks which; the person
// answers in a few words ("let's do vite"). The words alone are a step of
// that day's task; what lasts is the decision they make: which option was
// chosen, over which others, and what it is. That is said from the
// options, in the list's own words: "Chose Vite (modern, fast, great DX)
// over `serve` (dead simple) and `http-server` (minimal, popular)".

// optionLine is a list line or paragraph led by an option's name in bold,
// with "Option N:" before the name dropped: group 1 the name, group 2 what
// follows (its description).
var optionLine = regexp.MustCompile(`^\s*(?:[-*]\s+|\d+[.)]\s+)?\*\*(?:Option\s+\w{1,2}\s*[:.)–—-]\s*)?([^*]{2,60}?)\*\*\s*:?\s*(.*)$`)

// offered is one option Claude listed.
type offered struct{ name, desc string }

// offeredOptions are the options one of Claude's texts lists when it asks
// which to take (a question mark somewhere): two to six bold-led lines.
func offeredOptions(text string) []offered {
	if !strings.Contains(text, "?") {
		return nil
	}
	var out []offered
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		m := optionLine.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		name := strings.TrimSpace(strings.TrimRight(m[1], ":"))
		out = append(out, offered{name: name, desc: optionDesc(m[2])})
	}
	if len(out) < 2 || len(out) > 6 {
		return nil
	}
	return out
}

// optionDesc is the first clause of what follows an option's name: its
// bracketed gloss, else the text after a dash, up to the first sentence
// end.
func optionDesc(rest string) string {
	rest = strings.TrimSpace(stripMarkdown(rest))
	if strings.HasPrefix(rest, "(") {
		if i := strings.IndexByte(rest, ')'); i > 1 {
			return rest[1:i]
		}
	}
	rest = strings.TrimSpace(strings.TrimLeft(rest, "-–—: "))
	if i := strings.Index(rest, ". "); i > 0 {
		rest = rest[:i]
	}
	return cut(strings.TrimRight(rest, "."), 90)
}

// distinctive are the words of s that name something: code spans' words
// and words outside common English, lower case.
func distinctive(s string) []string {
	var out []string
	for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
		if len(w) >= 3 && !english.Common(w) && !english.Common(strings.TrimRight(w, "s")) {
			out = append(out, w)
		}
	}
	return out
}

// chosenOption is the one option of opts the person's words name (by a
// distinctive word of its name), with the others.
func chosenOption(said string, opts []offered) (offered, []offered, bool) {
	low := " " + strings.ToLower(said) + " "
	pick := -1
	for i, o := range opts {
		names := distinctive(o.name)
		// A name in code is the option's name even in common words
		// (`serve`).
		for _, m := range backtickRe.FindAllStringSubmatch(o.name, -1) {
			names = append(names, strings.ToLower(m[1]))
		}
		for _, w := range names {
			if strings.Contains(low, w) {
				if pick >= 0 && pick != i {
					return offered{}, nil, false // names two: not a choice
				}
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return offered{}, nil, false
	}
	var others []offered
	for i, o := range opts {
		if i != pick {
			others = append(others, o)
		}
	}
	return opts[pick], others, true
}

// choiceContent states a short decision as the choice it makes among the
// options of Claude's recent texts (latest first): none when no list of
// options there holds exactly one the words name.
func choiceContent(said string, recent, asked []string) (string, int, bool) {
	for i := len(recent) - 1; i >= 0; i-- {
		opts := offeredOptions(recent[i])
		if opts == nil {
			continue
		}
		chosen, others, ok := chosenOption(said, opts)
		if !ok {
			continue
		}
		var b strings.Builder
		b.WriteString(chose(chosen, others))
		// Why the choice was made, in the person's words: their own
		// reason when the words that chose give one ("let's do vite,
		// people may not have Python"), else what they had said when
		// the options were offered. That is "asked" only when it asks
		// ("…Would there be a cross-platform solution?"); a request
		// that asks nothing ("let's make it cross-browser") did not ask
		// for the choice, and "asked" would read as if it made it.
		switch {
		case saysMore(said, opts):
			b.WriteString(" (the user said: “" + cut(strings.TrimSpace(said), 140) + "”)")
		case i < len(asked) && named(asked[i]) && len(strings.Fields(asked[i])) >= 6:
			how := " (offered when the user said: “"
			if strings.Contains(asked[i], "?") {
				how = " (asked: “"
			}
			b.WriteString(how + cut(voiceContent(oneLine(asked[i])), 200) + "”)")
		}
		return b.String(), i, true
	}
	return "", -1, false
}

// saysMore reports whether the words that chose say something besides
// naming an option: a distinctive word no option's name or description
// holds.
func saysMore(said string, opts []offered) bool {
	var known strings.Builder
	for _, o := range opts {
		known.WriteString(strings.ToLower(o.name+" "+o.desc) + " ")
	}
	for _, w := range distinctive(said) {
		if !strings.Contains(known.String(), w) {
			return true
		}
	}
	return false
}

// chose says the choice: "Chose Vite (…) over `serve` (…)". Options
// named by what to do ("Migrate to AudioWorklet", "Keep ScriptProcessor")
// are verbs, not names: "Chose to migrate to AudioWorklet (…) rather
// than keep ScriptProcessor (…)".
func chose(chosen offered, others []offered) string {
	verbs := verbLed(chosen.name)
	for _, o := range others {
		verbs = verbs && verbLed(o.name)
	}
	head, last := "Chose "+withDesc(chosen)+" over ", " and "
	if verbs {
		head, last = "Chose to "+withDesc(asVerb(chosen))+" rather than ", " or "
	}
	var b strings.Builder
	b.WriteString(head)
	for j, o := range others {
		switch {
		case j == 0:
		case j == len(others)-1:
			b.WriteString(last)
		default:
			b.WriteString(", ")
		}
		if verbs {
			o = asVerb(o)
		}
		b.WriteString(withDesc(o))
	}
	return b.String()
}

// optionVerbs open an option named by what to do.
var optionVerbs = map[string]bool{
	"add": true, "adopt": true, "avoid": true, "convert": true, "create": true, "delete": true,
	"disable": true, "drop": true, "enable": true, "extract": true, "fix": true, "go": true,
	"ignore": true, "implement": true, "inline": true, "install": true, "keep": true,
	"leave": true, "merge": true, "migrate": true, "move": true, "refactor": true,
	"remove": true, "rename": true, "replace": true, "revert": true, "rewrite": true,
	"run": true, "skip": true, "split": true, "stay": true, "stick": true, "switch": true,
	"upgrade": true, "use": true, "wait": true, "write": true,
}

// verbLed reports whether an option's name says what to do: a verb
// ("Keep", "Migrate") then more words.
func verbLed(name string) bool {
	f := strings.Fields(name)
	return len(f) >= 2 && optionVerbs[strings.ToLower(f[0])]
}

// asVerb is a verb-led option with its verb in lower case, to follow
// "to" or "rather than".
func asVerb(o offered) offered {
	if f := strings.Fields(o.name); len(f) > 0 && verbLed(o.name) {
		o.name = strings.ToLower(f[0]) + strings.TrimPrefix(o.name, f[0])
	}
	return o
}

func withDesc(o offered) string {
	if o.desc == "" {
		return o.name
	}
	return o.name + " (" + o.desc + ")"
}

// choiceAdder wraps add so that a short decision of the person's that
// picks one of the options Claude offered in its recent texts is said as
// that choice (rule user:choice).
func choiceAdder(add func(candidate), recent, asked, askedIDs []string) func(candidate) {
	return func(c candidate) {
		if c.rule == "user:decision" {
			said := c.content
			if i := strings.Index(said, " (after Claude: "); i > 0 {
				said = said[:i]
			}
			if len(strings.Fields(said)) <= 12 {
				if choice, i, ok := choiceContent(said, recent, asked); ok {
					c.content, c.rule = choice, "user:choice"
					if i < len(askedIDs) && askedIDs[i] != "" && (strings.Contains(choice, " (asked: “") || strings.Contains(choice, " (offered when the user said: “")) {
						c.uuids = append(c.uuids, askedIDs[i])
					}
				}
			}
		}
		add(c)
	}
}

// dropDecisionsOf removes the decisions proposed from the prompts of
// uuids: a choice that quotes what the person asked says it with its
// answer.
func (cs *candidateSet) dropDecisionsOf(uuids []string) {
	out, toks := cs.out[:0], cs.toks[:0]
	for i, c := range cs.out {
		if c.rule == "user:decision" && slices.ContainsFunc(c.uuids, func(u string) bool { return slices.Contains(uuids, u) }) {
			continue
		}
		out, toks = append(out, c), append(toks, cs.toks[i])
	}
	cs.out, cs.toks = out, toks
}
