package store

import (
	"context"
	"time"

	"boxoffice/booking"
)

// ReportReads read what the reports add up. Each is one statement (one
// moment's rows) that finds its range through an index on time, never by
// reading a table whole; times come back in any location, the store puts
// them in the range's.
type ReportReads interface {
	// RefundLines lists the refunds paid in [w.From, w.To) at w.Site,
	// oldest first. A refund of one ticket names its approver itself; a
	// whole booking's older refund was approved, if at all, on the
	// booking.
	RefundLines(ctx context.Context, w ReportWindow) ([]RefundLine, error)
	// ShowSeats lists the shows starting in the window with their
	// capacity and seats sold now, by start then hall (Key the show's
	// id, Label the film, Shows 1).
	ShowSeats(ctx context.Context, w ReportWindow) ([]booking.OccupancyRow, error)
	// HallSeats adds the shows starting in the window up per hall, by
	// name (Key the hall's id, Label its name).
	HallSeats(ctx context.Context, w ReportWindow) ([]booking.OccupancyRow, error)
	// ShiftLines lists the shifts opened in the window with their money,
	// oldest first; Expected and Variance are left to the store.
	ShiftLines(ctx context.Context, w ReportWindow) ([]ShiftLine, error)
	// NoShowLines lists the bookings marked no_show of the shows
	// starting in the window, by start, hall, booking.
	NoShowLines(ctx context.Context, w ReportWindow) ([]booking.NoShowRow, error)
}

// ReportWindow is the time a report covers and the site it is kept to
// (0: every site).
type ReportWindow struct {
	From, To time.Time
	Site     int64
}

// RefundLine is a refund with its show's hall.
type RefundLine struct {
	booking.RefundRow
	Hall string
}

// ShiftLine is a shift with what it recorded at its close (Counted and
// Recorded nil while it is open).
type ShiftLine struct {
	booking.ShiftRow
	Recorded *booking.Money // the expected cash recorded at the close
}

// reportRange authorizes a report, validates its range, reads its days
// at its site (Zoned) and says what window it reads; the range returned
// is the one the rows' times are put in.
func (s *Store) reportRange(ctx context.Context, actor booking.Actor, r booking.ReportRange) (ReportWindow, booking.ReportRange, error) {
	if err := booking.Authorize(actor, booking.ActionViewReports); err != nil {
		return ReportWindow{}, r, err
	}
	if err := r.Validate(); err != nil {
		return ReportWindow{}, r, err
	}
	r, err := Zoned(s, ctx, r)
	if err != nil {
		return ReportWindow{}, r, err
	}
	return ReportWindow{From: r.Start(), To: r.End(), Site: r.Site}, r, nil
}

// reportTo is the last day a report's heading names.
func reportTo(r booking.ReportRange) time.Time { return booking.DayStart(r.To.In(r.From.Location())) }

// ReportRefunds lists the refunds paid out in the range.
func (s *Store) ReportRefunds(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.RefundsReport, error) {
	w, r, err := s.reportRange(ctx, actor, r)
	if err != nil {
		return nil, err
	}
	lines, err := s.d.RefundLines(ctx, w)
	if err != nil {
		return nil, err
	}
	rep := &booking.RefundsReport{From: w.From, To: reportTo(r), Rows: make([]booking.RefundRow, 0, len(lines))}
	loc := r.From.Location()
	for _, l := range lines {
		row := l.RefundRow
		row.At, row.Starts = row.At.In(loc), row.Starts.In(loc)
		row.Show += " · " + l.Hall
		rep.Rows = append(rep.Rows, row)
	}
	rep.Totals()
	return rep, nil
}

// ReportOccupancy is how full the shows starting in the range are.
func (s *Store) ReportOccupancy(ctx context.Context, actor booking.Actor, q booking.OccupancyQuery) (*booking.OccupancyReport, error) {
	w, zr, err := s.reportRange(ctx, actor, q.ReportRange)
	if err != nil {
		return nil, err
	}
	by, err := booking.ParseOccupancyBy(string(q.By))
	if err != nil {
		return nil, err
	}
	read := s.d.ShowSeats
	if by == booking.PerHall {
		read = s.d.HallSeats
	}
	rows, err := read(ctx, w)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if by != booking.PerHall {
			rows[i].Starts = rows[i].Starts.In(zr.From.Location())
		}
	}
	rep := &booking.OccupancyReport{From: w.From, To: reportTo(zr), By: by, Rows: append([]booking.OccupancyRow{}, rows...)}
	rep.Totals()
	return rep, nil
}

// ReportShifts lists the shifts opened in the range with their variance:
// a closed shift's expected figure is the one recorded at its close, an
// open one's is worked out as it stands.
func (s *Store) ReportShifts(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.ShiftsReport, error) {
	w, r, err := s.reportRange(ctx, actor, r)
	if err != nil {
		return nil, err
	}
	lines, err := s.d.ShiftLines(ctx, w)
	if err != nil {
		return nil, err
	}
	rep := &booking.ShiftsReport{From: w.From, To: reportTo(r), Rows: make([]booking.ShiftRow, 0, len(lines))}
	loc := r.From.Location()
	for _, l := range lines {
		row := l.ShiftRow
		row.OpenedAt = row.OpenedAt.In(loc)
		if row.ClosedAt != nil {
			at := row.ClosedAt.In(loc)
			row.ClosedAt = &at
		}
		row.Expected = row.Float + row.CashSales - row.CashRefunds
		if row.Counted != nil && l.Recorded != nil {
			v := *row.Counted - *l.Recorded
			row.Expected, row.Variance = *l.Recorded, &v
		} else {
			row.Counted = nil
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.Totals()
	return rep, nil
}

// ReportNoShows lists the no-shows of the shows starting in the range.
func (s *Store) ReportNoShows(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.NoShowsReport, error) {
	w, r, err := s.reportRange(ctx, actor, r)
	if err != nil {
		return nil, err
	}
	rows, err := s.d.NoShowLines(ctx, w)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].Starts = rows[i].Starts.In(r.From.Location())
	}
	rep := &booking.NoShowsReport{From: w.From, To: reportTo(r), Rows: append([]booking.NoShowRow{}, rows...)}
	rep.Totals()
	return rep, nil
}
