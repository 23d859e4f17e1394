package cli

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The one rule for every command's flags, applied while the command line
// is parsed, before a command does anything:
//
//   - a value that is not of the flag's type is refused with what the flag
//     takes ("--days takes a whole number, not \"abc\"");
//   - a number flag takes 0 or more, or the range given with flagRange;
//   - a flag given choices with flagChoices takes only those (a
//     comma-separated list of them when multi);
//   - a flag given a check with flagCheck takes what the check accepts
//     (the domain's own parser: memory types, statuses).
//
// Every refusal is a usage error (exit 2) that names the flag. Commands
// declare what their flags accept next to the flag; strictCommands
// installs the checks on every command of the tree.

// Annotation keys on a pflag.Flag.
const (
	annRange   = "cairn.range"   // [min, max, why]; max "" for none
	annChoices = "cairn.choices" // the accepted values
	annMulti   = "cairn.multi"   // present: a comma-separated list of choices
)

// flagRange makes the number flag name of cmd accept min to max only;
// max < min means no upper bound. why, when set, is said with a refusal
// ("search reads at most 100 candidates").
func flagRange(cmd *cobra.Command, name string, min, max float64, why string) {
	hi := ""
	if max >= min {
		hi = fmtNum(max)
	}
	annotate(cmd, name, annRange, fmtNum(min), hi, why)
}

// flagChoices makes flag name of cmd accept only choices (when multi, a
// comma-separated list of them).
func flagChoices(cmd *cobra.Command, name string, multi bool, choices ...string) {
	annotate(cmd, name, annChoices, choices...)
	if multi {
		annotate(cmd, name, annMulti)
	}
}

// flagCheck makes flag name of cmd accept what check accepts; check's
// error says why not (the flag's name is added).
func flagCheck(cmd *cobra.Command, name string, check func(string) error) {
	f := lookup(cmd, name)
	f.Value = &checkedValue{Value: f.Value, check: check}
}

func lookup(cmd *cobra.Command, name string) *pflag.Flag {
	f := cmd.Flags().Lookup(name)
	if f == nil {
		panic("cli: no flag --" + name + " on " + cmd.CommandPath())
	}
	return f
}

func annotate(cmd *cobra.Command, name, key string, values ...string) {
	f := lookup(cmd, name)
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[key] = values
}

// checkedValue is a flag value that checks what it is given once it has
// parsed it.
type checkedValue struct {
	pflag.Value
	check func(string) error
	err   error // the check's last refusal, for flagError
}

func (v *checkedValue) Set(s string) error {
	v.err = nil
	if err := v.Value.Set(s); err != nil {
		return err // not of the flag's type
	}
	if err := v.check(s); err != nil {
		v.err = err
		return err
	}
	return nil
}

// installRule puts the rule on a flag: its range (numbers) or choices.
func installRule(f *pflag.Flag) {
	if _, done := f.Value.(*checkedValue); done {
		return
	}
	if choices, ok := f.Annotations[annChoices]; ok {
		_, multi := f.Annotations[annMulti]
		f.Value = &checkedValue{Value: f.Value, check: func(s string) error { return checkChoice(s, choices, multi) }}
		return
	}
	if !isNumber(f) {
		return
	}
	lo, hi, why := 0.0, "", ""
	if r, ok := f.Annotations[annRange]; ok {
		lo, _ = strconv.ParseFloat(r[0], 64)
		hi, why = r[1], r[2]
	}
	f.Value = &checkedValue{Value: f.Value, check: func(s string) error { return checkRange(s, lo, hi, why) }}
}

// checkRange refuses a number outside lo..hi (hi "" for no bound).
func checkRange(s string, lo float64, hi, why string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return nil // a form ParseFloat does not read (0x10): the type parser took it
	}
	max, hasMax := 0.0, hi != ""
	if hasMax {
		max, _ = strconv.ParseFloat(hi, 64)
	}
	if finite(v) && v >= lo && (!hasMax || v <= max) {
		return nil
	}
	msg := fmt.Sprintf("takes %s or more", fmtNum(lo))
	if hasMax {
		msg = fmt.Sprintf("takes %s to %s", fmtNum(lo), fmtNum(max))
	}
	return errors.New(withWhy(msg, why))
}

// finite says v is a number: not NaN nor an infinity.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// withWhy is msg followed by its reason in parentheses, when there is one.
func withWhy(msg, why string) string {
	if why == "" {
		return msg
	}
	return msg + " (" + why + ")"
}

// checkChoice refuses a value (or, when multi, a list member) not among
// choices.
func checkChoice(s string, choices []string, multi bool) error {
	vals := []string{s}
	if multi {
		vals = strings.Split(s, ",")
	}
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if v == "" && multi {
			continue
		}
		if !slices.Contains(choices, v) {
			list := orList(choices)
			if multi {
				list += " (comma-separated)"
			}
			return fmt.Errorf("takes %s, not %q", list, v)
		}
	}
	return nil
}

func isNumber(f *pflag.Flag) bool {
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return true
	}
	return false
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// orList writes "a, b or c".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// pflagInvalid matches pflag's error for a value a flag refused:
// invalid argument "abc" for "-d, --days" flag: strconv.ParseInt: ...
var pflagInvalid = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag`)

// flagError turns a flag parse error into a usage error that names the
// flag and says what it takes (cobra's FlagErrorFunc, for every command).
func flagError(cmd *cobra.Command, err error) error {
	if m := pflagInvalid.FindStringSubmatch(err.Error()); m != nil {
		if f := cmd.Flags().Lookup(m[2]); f != nil {
			if cv, ok := f.Value.(*checkedValue); ok && cv.err != nil {
				msg := cv.err.Error()
				if !strings.HasPrefix(msg, "takes ") {
					return usageError{fmt.Errorf("--%s: %w", f.Name, cv.err)}
				}
				if !strings.Contains(msg, ", not ") {
					msg += fmt.Sprintf(", not %s", m[1])
				}
				return usageError{fmt.Errorf("--%s %s", f.Name, msg)}
			}
			return usageError{fmt.Errorf("--%s takes %s, not %q", f.Name, typeName(f), m[1])}
		}
	}
	return usageError{fmt.Errorf("%w (see `%s --help`)", err, cmd.CommandPath())}
}

// typeName says what a flag of f's type takes.
func typeName(f *pflag.Flag) string {
	switch t := f.Value.Type(); {
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "duration":
		return "a duration like 90s or 5m"
	default:
		return "a " + t
	}
}

// strictCommands installs the rule on every command under root: flag
// values are checked as they are parsed, and flag and argument errors are
// usage errors.
func strictCommands(root *cobra.Command) {
	root.SetFlagErrorFunc(flagError)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(installRule)
		c.PersistentFlags().VisitAll(installRule)
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					return usageError{fmt.Errorf("%w (see `%s --help`)", err, cmd.CommandPath())}
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
