package memories

import (
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/transcripts"
)

// A correction Claude agreed to. When the person questions Claude's
// approach in their own words ("I think the library is setting it, it's
// an inline style", "we might need to move it to vercel.json?"), Claude
// opens its answer by agreeing ("You're absolutely right!", "Good
// catch!") and says in its next sentence what holds: "Vercel has its own
// redirect configuration that takes precedence." The agreement marks the
// person's words as a correction however they were phrased (a question,
// a guess); Claude's sentence says the lesson in general words. Both are
// proposed together, the person's words as what it answers.

// ackOpen is Claude agreeing with what the person just said.
var ackOpen = lazyRE(`(?i)^(you'?re|you are) (absolutely |totally |completely |quite )?right\b[\s!.,:;—–-]*|^(good|great|nice) (catch|point)\b[\s!.,:;—–-]*|^ah,? (good catch|you'?re right)\b[\s!.,:;—–-]*`)

// ackLeadIn is a sentence's opening that only says how Claude saw it ("I
// can see in the dev tools that…", "Looking at the code,").
var ackLeadIn = lazyRE(`(?i)^(i (can )?(now )?see( now)?( (in|from) [^,]{1,40})? that|looking at [^,]{1,60},|indeed,?|yes,?)\s+`)

// ackUse is "Let me use X which will Y": said as "X will Y".
var ackUse = lazyRE(`(?i)^(?:let me|i'?ll|we can|let'?s) (?:use|run|switch to) (.+?),? which (.+)$`)

// personWords is what the person typed in a prompt: without the IDE's
// notes on an open file or a selection (transcripts.WithoutIDENotes, also
// a note the index cut short).
func personWords(text string) string {
	return strings.TrimSpace(transcripts.WithoutIDENotes(promptText(text)))
}

// stillFailing is the person saying what was tried has not helped ("Still
// doesn't work", "This is annoying, maybe…").
var failingReport = lazyRE(`(?i)\b(still|again|(does|did|is|are)n'?t (work|working|help)|not working|annoying|same (error|problem|issue))\b`)

func stillFailing(words string) bool {
	return failingReport.MatchString(cut(words, 300))
}

// imageRef is a pasted image's placeholder in a prompt.
var imageRef = lazyRE(`\[Image #\d+\]`)

// ackSkip is a sentence about the work at hand ("We don't need X at all",
// "We need a solution that…") or a proposal ("X would be…"), not what
// holds.
var ackSkip = lazyRE(`(?i)^(we|let'?s|that'?s)\b|\bwould\b`)

// ackVerdict is a judgement of an approach ("much cleaner", "a better
// way"): a lesson only with the thing it judges named in code.
var ackVerdict = lazyRE(`(?i)\b(cleaner|better|simpler|nicer|easier)\b`)

// agreedLesson is the sentence of Claude's agreeing text that says what
// holds: the first one after the agreement, in its first paragraph, that
// names something and is neither narration, a guess nor about Claude.
func agreedLesson(text string) (string, bool) {
	first := strings.TrimSpace(text)
	if i := strings.Index(first, "\n\n"); i > 0 {
		first = first[:i]
	}
	m := ackOpen.get().FindStringIndex(first)
	if m == nil {
		return "", false
	}
	rest := stripMarkdown(strings.TrimSpace(first[m[1]:]))
	for _, s := range sentences(rest) {
		s = strings.TrimSpace(s)
		if mm := ackUse.FindStringSubmatch(s); mm != nil {
			s = mm[1] + " " + mm[2]
		}
		s = ackLeadIn.ReplaceAllString(s, "")
		if s == "" {
			continue
		}
		if narration.MatchString(s) || firstPerson.MatchString(s) || hedge.MatchString(s) || dangling.MatchString(s) || ackSkip.MatchString(s) {
			continue
		}
		if ackVerdict.MatchString(s) && !specific(s) {
			continue // "The docs show a much cleaner approach": which, the next sentence says
		}
		if len(strings.Fields(s)) < 5 || !named(s) {
			continue
		}
		return strings.ToUpper(s[:1]) + s[1:], true
	}
	return "", false
}

// asksFor is words that ask for something to be found or done ("We need
// to find a cleaner way to reinstall…", "Can you…", "How do I…", "Is
// there a way…") rather than say what holds. Claude's "You're right!"
// then answers a request, and what follows is Claude's proposal, not a
// claim of the person's that Claude agreed to: saying "agreed" would
// credit the person with the lesson. Words that state something ("I
// think the library is setting it", "The redirection doesn't work… we
// might need to move it to vercel.json?") are what Claude agrees to,
// however tentative. "We need to use X" names X, so it states; only a
// need for something not yet named ("find", "a way") asks.
var asksFor = lazyRE(`(?i)^(?:(?:ok(?:ay)?|so|but|and|hmm+|well)\b[\s,]*)*(?:(?:we|i) (?:need|want|have|would like|'d like) (?:to (?:find|figure out|work out|come up with|get)\b|(?:a|an|some) (?:way|solution|fix|approach)\b)|(?:can|could|would|will) you\b|please\b|let'?s (?:find|figure out|see)\b|(?:how|what|where|which|why) (?:do|does|can|could|should|would|is|are)\b|is there (?:a|an|any)\b|(?:find|figure out|help)\b)`)

// ackCandidate proposes what Claude agreed to after the person's prompt
// said: "Vercel has its own redirect configuration that takes precedence
// (agreed when the user said: “we might need to move it to vercel.json?”)".
func ackCandidate(e index.MemEntry, prompt index.MemEntry, add func(candidate)) {
	lesson, ok := agreedLesson(e.Text)
	if !ok {
		return
	}
	said := ""
	for _, s := range sentences(stripMarkdown(oneLine(personWords(prompt.Text)))) {
		s = strings.TrimSpace(imageRef.ReplaceAllString(strings.ReplaceAll(s, "\\ ", " "), ""))
		if s = voiceContent(s); len(strings.Fields(s)) >= 3 {
			said = cut(s, 140)
			break
		}
	}
	if said == "" {
		return
	}
	how := " (agreed when the user said: “"
	if asksFor.MatchString(said) {
		how = " (proposed when the user asked: “"
	}
	content := strings.TrimRight(lesson, ".:;,") + how + said + "”)"
	add(candidate{typ: Pattern, content: content, importance: 3, uuids: []string{prompt.UUID, e.UUID}, rule: "claude:agreed"})
}

// addAgreed adds what Claude agreed to, unless the person's words it
// answers are proposed already (said in their own words, they need no
// second proposal).
func (cs *candidateSet) addAgreed(cs2 []candidate) {
	for _, c := range cs2 {
		said := false
		for _, o := range cs.out {
			said = said || slices.Contains(o.uuids, c.uuids[0])
		}
		if !said {
			cs.add(c)
		}
	}
}
