package db

import (
	"context"

	"boxoffice/booking"
)

// SetTerminalPrinter sets where a registered terminal prints, "" for
// none. The URL is read (booking.ParsePrinter) before the transaction and
// stored in its canonical form, so every reader sees one spelling.
func (s *Store) SetTerminalPrinter(ctx context.Context, actor booking.Actor, name, printer string) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	p, err := booking.ParsePrinter(printer)
	if err != nil {
		return nil, err
	}
	name = booking.CleanLine(name, 40)
	url := p.String()
	return write(s, ctx, actor, "set terminal printer", func(w *wtx) (*booking.Terminal, error) {
		t := &booking.Terminal{Printer: url, Site: booking.MainSite}
		err := w.queryRow(`UPDATE terminals SET printer = ? WHERE name = ? RETURNING id, name`, url, name).Scan(&t.ID, &t.Name)
		if isNoRows(err) {
			return nil, booking.Errorf(booking.ENotFound, "No terminal called %s.", name)
		}
		detail := t.Name + ": printer " + url
		if url == "" {
			detail = t.Name + ": no printer"
		}
		return t, auditDone(w, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: detail}, err)
	})
}
