//go:build unix

package cli

import (
	"os/signal"
	"syscall"
)

// ignoreStopSignals makes the kiosk deaf to interrupt, quit and suspend
// sent to the process, and returns what undoes it.
func ignoreStopSignals() func() {
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP}
	for _, s := range sigs {
		signal.Ignore(s)
	}
	return func() {
		for _, s := range sigs {
			signal.Reset(s)
		}
	}
}
