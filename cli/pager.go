package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// defaultPager is the pager when $PAGER is not set: -R lets cairn's own
// colour through; LESS=FRX (set when LESS is not) quits at once when the
// text fits the screen and leaves it on the screen, as git does.
const defaultPager = "less -R"

// page runs print with o.Stdout going through the pager ($CAIRN_PAGER,
// else $PAGER, else less -R when less is installed) when stdout is a
// terminal: never when it is piped or a file, with --no-pager or --json,
// or when the pager is set to "" or cat. print sees a writer that stands for the terminal (its width,
// colour on), so a table fits the screen and colour reaches less -R. A
// pager that cannot start is skipped (the text is printed as is); one the
// person quits early ends the output quietly.
func (o *Options) page(print func() error) error {
	f, ok := o.pagedTerminal()
	if !ok {
		return print()
	}
	cmdline, ok := pagerCommand()
	if !ok {
		return print()
	}
	cmd, in, err := startPager(cmdline, f, o.Stderr)
	if err != nil {
		return print()
	}
	// ctrl+c in the pager is the pager's: cairn waits for it to end.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	saved := o.Stdout
	o.Stdout = &pagerWriter{w: in, width: terminalWidth(f)}
	perr := print()
	o.Stdout = saved
	in.Close()
	_ = cmd.Wait()
	if pagerQuit(perr) {
		return nil // the person quit the pager before the end
	}
	return perr
}

// pagedTerminal is the terminal o.Stdout is, when the output goes
// through the pager: not with --no-pager or --json.
func (o *Options) pagedTerminal() (*os.File, bool) {
	f, ok := o.Stdout.(*os.File)
	return f, ok && !o.NoPager && !o.JSON && isTerminal(f)
}

// pagerQuit says a write failed because the pager was quit: its pipe is
// broken or closed.
func pagerQuit(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// startPager starts the pager cmdline on the terminal f, and returns it
// with the pipe to its input.
func startPager(cmdline string, f *os.File, stderr io.Writer) (*exec.Cmd, io.WriteCloser, error) {
	cmd := pagerCmd(cmdline, f, stderr)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return cmd, in, nil
}

// pagerCommand is the pager's command line: $CAIRN_PAGER, else $PAGER,
// else less -R when less is installed. It is false when there is none, or
// it is set to "" or cat.
func pagerCommand() (string, bool) {
	cmdline, set := os.LookupEnv("CAIRN_PAGER")
	if !set {
		cmdline, set = os.LookupEnv("PAGER")
	}
	if !set {
		if _, err := exec.LookPath("less"); err != nil {
			return "", false // no less here: the text as is
		}
		cmdline = defaultPager
	}
	if c := strings.TrimSpace(cmdline); c == "" || c == "cat" {
		return "", false
	}
	return cmdline, true
}

// pagerCmd runs cmdline on the terminal f, with less and lv told to pass
// colour through and quit when the text fits unless the environment says
// otherwise.
func pagerCmd(cmdline string, f *os.File, stderr io.Writer) *exec.Cmd {
	// Not under a command context: the pager ends when the person quits it.
	cmd := exec.CommandContext(context.Background(), "sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = f, stderr
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if _, ok := os.LookupEnv("LV"); !ok {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	return cmd
}

// pagerWriter is the pager's input, standing for the terminal the pager
// shows it on.
type pagerWriter struct {
	w     io.Writer
	width int
}

func (p *pagerWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pagerWriter) terminal() (bool, int)       { return true, p.width }
