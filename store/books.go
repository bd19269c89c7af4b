package store

import (
	"context"
	"encoding/json"
	"time"

	"boxoffice/booking"
)

// The day close, the cash drawer and the ID check (booking.Books).
//
// A day close adds up the Z reports of the shifts opened on a site's
// local day — the reports a driver already reads, so the close says
// exactly what each clerk's Z said — and keeps the result as it was made:
// one row per site and day, which neither engine lets anything change, so
// the day prints again the same whatever happens to the shifts later.

// BooksTx is what the day close and the drawer ask of a transaction.
type BooksTx interface {
	// DayClosed reads who closed a site's day and when; found is false
	// when nobody has.
	DayClosed(site int64, day string) (by string, at time.Time, found bool, err error)
	// InsertDayClose keeps a day's report; the key (site, day) refuses a
	// second, which the rule has checked for first.
	InsertDayClose(site int64, day, by string, at time.Time, report []byte) error
	// UpdateTerminalDrawer sets whether a terminal's printer opens the
	// drawer; found is false when no terminal has the name.
	UpdateTerminalDrawer(name string, on bool) (t booking.Terminal, found bool, err error)
}

// BooksReads are their reads outside a transaction.
type BooksReads interface {
	// ReadDayClose reads a closed day's report as stored; found is false
	// when the day was not closed.
	ReadDayClose(ctx context.Context, site int64, day string) (report []byte, found bool, err error)
	// ReadTerminalDrawer reads whether a terminal opens the drawer;
	// found is false for a name no terminal has.
	ReadTerminalDrawer(ctx context.Context, name string) (on, found bool, err error)
}

// CloseDay closes a site's day once every shift opened on it is closed.
// The report is worked out from reads, then stored in a write that checks
// the day is still unclosed: two closes at once store one, and the other
// is told the day was closed.
func (s *Store) CloseDay(ctx context.Context, actor booking.Actor, day time.Time, site int64) (*booking.DayReport, error) {
	if err := booking.Authorize(actor, booking.ActionCloseDay); err != nil {
		return nil, err
	}
	w, r, err := s.dayWindow(ctx, day, site)
	if err != nil {
		return nil, err
	}
	if !r.Start().Before(s.d.Now()) {
		return nil, booking.Errorf(booking.EInvalid, "%s has not begun: a day is closed once its shifts are.", r.Start().Format(time.DateOnly))
	}
	lines, err := s.d.ShiftLines(ctx, w)
	if err != nil {
		return nil, err
	}
	var open []booking.Shift
	zs := make([]*booking.ShiftReport, 0, len(lines))
	for _, l := range lines {
		if l.Status != string(booking.ShiftClosed) {
			open = append(open, booking.Shift{ID: l.ID, Staff: l.Staff, Terminal: l.Terminal})
			continue
		}
		z, err := s.shiftReport(ctx, l.ID)
		if err != nil {
			return nil, err
		}
		zs = append(zs, z)
	}
	if len(open) > 0 {
		return nil, booking.ErrShiftsOpen(r.Start(), open)
	}
	rep := booking.NewDayReport(r.Start(), w.Site, zs)
	key := r.Start().Format(time.DateOnly)
	return write(s, ctx, actor, Write{Op: "close day"}, func(tx Tx) (*booking.DayReport, error) {
		by, at, found, err := tx.DayClosed(w.Site, key)
		if err != nil {
			return nil, err
		}
		if found {
			return nil, booking.ErrDayClosed(r.Start(), by, at.In(r.From.Location()))
		}
		rep.ClosedBy, rep.ClosedAt = actor.Name, tx.Now().In(r.From.Location())
		body, err := json.Marshal(rep)
		if err != nil {
			return nil, err
		}
		if err := tx.InsertDayClose(w.Site, key, actor.Name, tx.Now(), body); err != nil {
			return nil, err
		}
		total := rep.Total()
		return rep, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditDayClose, Amount: total.Net,
			Detail: "day close " + key + ": cash to bank " + rep.CashToBank.String() + ", variance " + rep.Variance.String()}, 0)
	})
}

// DayReport reads a closed day's report as it was stored.
func (s *Store) DayReport(ctx context.Context, actor booking.Actor, day time.Time, site int64) (*booking.DayReport, error) {
	if err := booking.Authorize(actor, booking.ActionViewReports); err != nil {
		return nil, err
	}
	w, r, err := s.dayWindow(ctx, day, site)
	if err != nil {
		return nil, err
	}
	key := r.Start().Format(time.DateOnly)
	body, found, err := s.d.ReadDayClose(ctx, w.Site, key)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, booking.Errorf(booking.ENotFound, "%s has not been closed (`day close %s`).", key, key)
	}
	var rep booking.DayReport
	if err := json.Unmarshal(body, &rep); err != nil {
		return nil, booking.Errorf(booking.EInternal, "The report of %s could not be read.", key)
	}
	loc := r.From.Location()
	rep.Day, rep.ClosedAt = rep.Day.In(loc), rep.ClosedAt.In(loc)
	return &rep, nil
}

// dayWindow is one local day of a site as a report range, in its zone.
func (s *Store) dayWindow(ctx context.Context, day time.Time, site int64) (ReportWindow, booking.ReportRange, error) {
	if day.IsZero() {
		return ReportWindow{}, booking.ReportRange{}, booking.Errorf(booking.EInvalid, "Name the day, YYYY-MM-DD.")
	}
	r, err := Zoned(s, ctx, booking.ReportRange{From: day, To: day, Site: site})
	if err != nil {
		return ReportWindow{}, r, err
	}
	// An engine of one site keeps its days as the cinema's, so a close
	// with --site and one without are the same day.
	return ReportWindow{From: r.Start(), To: r.End(), Site: s.settingSite(r.Site)}, r, nil
}

// SetTerminalDrawer sets whether a terminal's printer opens the drawer.
func (s *Store) SetTerminalDrawer(ctx context.Context, actor booking.Actor, name string, on bool) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name = booking.CleanLine(name, 40)
	return write(s, ctx, actor, Write{Op: "set terminal drawer"}, func(tx Tx) (*booking.Terminal, error) {
		t, found, err := tx.UpdateTerminalDrawer(name, on)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, errNoTerminal(name)
		}
		detail := t.Name + ": drawer off"
		if on {
			detail = t.Name + ": drawer on"
		}
		return &t, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: detail}, 0)
	})
}

// TerminalDrawer reads whether a terminal's printer opens the drawer: a
// name no terminal has (the command line's own printer) opens it.
func (s *Store) TerminalDrawer(ctx context.Context, actor booking.Actor, name string) (bool, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return false, err
	}
	on, found, err := s.d.ReadTerminalDrawer(ctx, booking.CleanLine(name, 40))
	return on || !found, err
}

// OpenDrawer records a "no sale" opening of the actor's drawer.
func (s *Store) OpenDrawer(ctx context.Context, actor booking.Actor, reason string) error {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return err
	}
	why, err := booking.DrawerReason(reason)
	if err != nil {
		return err
	}
	return apply(s, ctx, actor, Write{Op: "open drawer"}, func(tx Tx) error {
		id, err := tx.OpenShiftID(actor.Name)
		if err != nil {
			return err
		}
		if id == 0 {
			return booking.ErrNoShift
		}
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditNoSale, ShiftID: id, Detail: "no sale: " + why}, 0)
	})
}

// ConfirmID records the clerk's ID check for a sale of an age-rated show.
func (s *Store) ConfirmID(ctx context.Context, actor booking.Actor, showID int64) error {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return err
	}
	sh, err := s.prog.Show(ctx, showID)
	if err != nil {
		return err
	}
	h, err := s.prog.HallOfShow(ctx, showID)
	if err != nil {
		return err
	}
	c, err := CinemaAt(s, ctx, h.Site) // the show's site's age
	if err != nil {
		return err
	}
	if !booking.NeedsID(sh.Film.Rating, c.IDAbove) {
		return booking.Errorf(booking.EInvalid, "%s (rated %s) needs no ID check.", booking.CleanLine(sh.Film.Title, 60), booking.CleanLine(sh.Film.Rating, 8))
	}
	return apply(s, ctx, actor, Write{Op: "confirm id"}, func(tx Tx) error {
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditIDCheck, ShowID: showID,
			Detail: "ID checked for " + booking.CleanLine(sh.Film.Title, 60) + " (" + booking.CleanLine(sh.Film.Rating, 8) + ")"}, 0)
	})
}
