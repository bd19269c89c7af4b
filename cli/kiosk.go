package cli

import (
	"context"
	"flag"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/tui"
	"boxoffice/tui/kiosk"
)

// kiosk: the self-service kiosk full screen in this terminal (issue 13).

const kioskLong = `Customers book (film, show, how many tickets, seats, name and phone) and get a
reservation to pay at the counter by its cut-off, or collect their tickets with the
booking number and the last four digits of their phone. ctrl+c, ctrl+z and ctrl+\
do nothing; a member of staff leaves the kiosk with ctrl+x then ctrl+e and a
manager's name and PIN. After 90 seconds without a key it starts again and lets
its seats go.`

func kioskFlags(fs *flag.FlagSet) runFunc {
	cutoff := fs.Duration("reserve-cutoff", booking.DefaultReserveCutoff, "a reservation lapses unpaid this long before its show")
	var pr target
	fs.StringVar(&pr.url, "printer", "", "print collected tickets on the kiosk's printer `URL` (tcp://HOST[:PORT] or /dev/usb/lp0)")
	cinemaFlag(fs, &pr.cinema)
	return func(c *env, pos []string) error {
		if len(pos) > 0 {
			return usagef("kiosk takes no arguments")
		}
		if *cutoff <= 0 {
			return usagef("--reserve-cutoff must be positive")
		}
		return c.kiosk(*cutoff, pr)
	}
}

// kiosk runs the kiosk until a manager closes it. The terminal is raw,
// so ctrl+c, ctrl+z and ctrl+\ arrive as keys, which the kiosk ignores;
// the same signals sent to the process are ignored too (ignoreStopSignals).
func (c *env) kiosk(cutoff time.Duration, pr target) error {
	printer, err := booking.ParsePrinter(pr.url)
	if err != nil {
		return err
	}
	// The kiosk's screen is the public's: the lines the log file misses
	// are kept unshown, for stderr once it closes.
	logger, _, done, err := c.openTerminal()
	if err != nil {
		return err
	}
	defer done()
	restore := ignoreStopSignals()
	defer restore()
	return c.withData(openOptions{logger: logger, cutoff: cutoff, live: true}, func(o *opened) error {
		m := kiosk.New(kiosk.Options{Store: o.store, Owner: "kiosk-" + randomID(), Terminal: "kiosk " + hostTerminal(),
			Now: c.now, Context: c.ctx, Logger: logger, Unlock: managerUnlock(o.store, "kiosk "+hostTerminal()),
			Printer: printer, Layout: pr.layout()})
		p, stop, err := tui.NewLocalProgram(m, c.stdin, c.term, kiosk.Filter, tea.WithoutSignalHandler())
		if err != nil {
			return err
		}
		ended := tui.QuitWhenDone(c.ctx, p)
		_, err = p.Run()
		ended()
		stop()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), 5*time.Second)
		defer cancel()
		if rerr := m.Release(rctx); rerr != nil {
			logger.Error("kiosk release on exit", "err", rerr)
		}
		if err != nil && c.ctx.Err() != nil {
			return nil
		}
		return err
	})
}

// managerUnlock checks a name and PIN as a counter's sign-in does, but on
// the kiosk chord's own lockout (SignInRequest.Kiosk), so a customer
// cannot lock a name out of the counters from the kiosk; it lets only a
// manager close the kiosk.
func managerUnlock(st backend, terminal string) func(ctx context.Context, name, pin string) error {
	return func(ctx context.Context, name, pin string) error {
		staff, err := st.SignIn(ctx, booking.SignInRequest{Name: name, PIN: pin, Terminal: terminal, Kiosk: true})
		if err != nil {
			return err
		}
		if staff.Role < booking.RoleManager {
			return booking.Errorf(booking.EForbidden, "Only a manager can close the kiosk.")
		}
		return nil
	}
}
