package store

import (
	"context"
	"strings"
	"time"

	"boxoffice/booking"
)

// AuditReads read the audit trail back (booking.Audit). Writing it is
// Audit's (audit.go), inside each write.
type AuditReads interface {
	// BookingIDByNumber finds a booking by its (normalized) number;
	// found is false when none has it.
	BookingIDByNumber(ctx context.Context, number string) (id int64, found bool, err error)
	// ReadAudit lists the audit rows f matches, newest first (by time,
	// then by id), at most f.Limit: each with its booking's number as
	// Booking, At in any location.
	ReadAudit(ctx context.Context, f AuditFilter) ([]booking.AuditEntry, error)
}

// AuditFilter is which rows ReadAudit reads. Every filter is a range of
// one of the trail's indexes (by booking, by time), so a page costs the
// same on a year of rows as on a day.
type AuditFilter struct {
	BookingID int64  // the booking's rows only; 0: any
	Actor     string // who acted, compared without case; "": anyone
	// From and Until bound the rows' time, unix ms: at or after From,
	// before Until; 0 leaves that end open.
	From, Until int64
	Limit       int
}

// Audit lists the audit rows matching q, newest first, at most
// q.AuditLimit(). A person is searched within a day or over the last
// booking.AuditStaffWindow: the trail is indexed by time, not by person.
func (s *Store) Audit(ctx context.Context, actor booking.Actor, q booking.AuditQuery) ([]booking.AuditEntry, error) {
	if err := booking.Authorize(actor, booking.ActionViewAudit); err != nil {
		return nil, err
	}
	f := AuditFilter{Actor: booking.CleanLine(q.Staff, 40), Limit: q.AuditLimit()}
	if strings.TrimSpace(q.Booking) != "" {
		number := booking.NormalizeNumber(q.Booking)
		id, found, err := s.d.BookingIDByNumber(ctx, number)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, booking.ErrNoBooking(number)
		}
		f.BookingID = id
	}
	loc := time.Local
	switch {
	case !q.Day.IsZero():
		day := booking.DayStart(q.Day)
		f.From, f.Until, loc = day.UnixMilli(), day.AddDate(0, 0, 1).UnixMilli(), q.Day.Location()
	case f.Actor != "":
		f.From = s.d.Now().Add(-booking.AuditStaffWindow).UnixMilli()
	}
	rows, err := s.d.ReadAudit(ctx, f)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].At = rows[i].At.In(loc)
	}
	return rows, nil
}
