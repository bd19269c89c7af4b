package db

import (
	"context"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The settings' and tax's queries on SQLite (store.SettingsTx,
// SettingsReads, TaxTx, TaxReads), on 0044_settings_and_tax.sql. The
// embedded store is one site: every value is kept at site 0.

// maxSettingRows and maxTaxRates bound what a read of either table
// hands over: far more than a cinema sets.
const (
	maxSettingRows = 10000
	maxTaxRates    = 100000
)

// SettingValue reads the value kept for key at site.
func (w *wtx) SettingValue(key string, site int64) (string, error) {
	var v string
	err := w.queryRow(`SELECT value FROM settings WHERE key = ? AND site = ?`, key, site).Scan(&v)
	if isNoRows(err) {
		return "", nil
	}
	return v, err
}

// PutSetting keeps value for key at site.
func (w *wtx) PutSetting(key string, site int64, value string) error {
	_, err := w.exec(`INSERT INTO settings (key, site, value) VALUES (?, ?, ?)
		ON CONFLICT (key, site) DO UPDATE SET value = excluded.value`, key, site, value)
	return err
}

// DeleteSetting removes the value of key at site.
func (w *wtx) DeleteSetting(key string, site int64) error {
	_, err := w.exec(`DELETE FROM settings WHERE key = ? AND site = ?`, key, site)
	return err
}

// ReadSettings lists every value kept.
func (d driver) ReadSettings(ctx context.Context) ([]booking.SettingRow, error) {
	rows, err := d.s.readRows(ctx, `SELECT key, site, value FROM settings ORDER BY site, key LIMIT ?`, maxSettingRows)
	if err != nil {
		return nil, d.s.translate("settings", err)
	}
	defer rows.Close()
	var out []booking.SettingRow
	for rows.Next() {
		var r booking.SettingRow
		if err := rows.Scan(&r.Key, &r.Site, &r.Value); err != nil {
			return nil, d.s.translate("settings", err)
		}
		out = append(out, r)
	}
	return out, d.s.translate("settings", rows.Err())
}

// InsertTaxRate appends a rate to the history.
func (w *wtx) InsertTaxRate(r booking.TaxRate) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO tax_rates (kind, code, rate, valid_from, set_by, set_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		string(r.Key.Kind), r.Key.Code, int64(r.Rate), r.From.UnixMilli(), r.SetBy, r.SetAt.UnixMilli()).Scan(&id)
	return id, err
}

// ReadTaxRates lists every rate ever set, oldest first.
func (d driver) ReadTaxRates(ctx context.Context) (booking.TaxRates, error) {
	rows, err := d.s.readRows(ctx, `SELECT id, kind, code, rate, valid_from, set_by, set_at FROM tax_rates ORDER BY id LIMIT ?`, maxTaxRates)
	if err != nil {
		return nil, d.s.translate("tax rates", err)
	}
	defer rows.Close()
	var out booking.TaxRates
	for rows.Next() {
		var r booking.TaxRate
		var kind string
		var from, at int64
		if err := rows.Scan(&r.ID, &kind, &r.Key.Code, &r.Rate, &from, &r.SetBy, &at); err != nil {
			return nil, d.s.translate("tax rates", err)
		}
		r.Key.Kind, r.From, r.SetAt = booking.TaxKind(kind), time.UnixMilli(from), time.UnixMilli(at)
		out = append(out, r)
	}
	return out, d.s.translate("tax rates", rows.Err())
}

// taxLinesSQL adds up the ticket lines of the sales, refunds and
// exchanges whose money was taken where cond says (on payments p; ?1 and
// ?2 bound a window, ?3 names a shift), each with the span of rate
// changes (?4, a JSON array of unix milliseconds) its sale falls in. A
// booking's first sale payment stands for its sale; its tickets are the
// range of ids it owns (ticketsPerBooking); a ticket refunded in parts is
// one line. The unary pluses and CROSS JOINs keep SQLite on the time
// indexes and the ticket id ranges: left to itself it scans the refunds'
// ticket index or builds an automatic index over every ticket.
func taxLinesSQL(cond string) string {
	span := func(at string) string { return `(SELECT count(*) FROM brk WHERE brk.at <= ` + at + `)` }
	return `WITH brk(at) AS (SELECT value FROM json_each(?4)),
	sales AS (SELECT p.booking_id, p.at FROM payments p WHERE p.kind = 'sale' AND ` + cond + `
		AND p.id = (SELECT min(q.id) FROM payments q WHERE q.booking_id = p.booking_id AND q.kind = 'sale')),
	backs AS (SELECT DISTINCT p.ticket_id FROM payments p WHERE p.kind = 'refund' AND +p.ticket_id IS NOT NULL AND ` + cond + `)
	SELECT t.type_code, t.price, 0, ` + span("s.at") + `, count(*)
		FROM sales s CROSS JOIN tickets t ON t.id BETWEEN s.booking_id * 32 AND s.booking_id * 32 + 31
		GROUP BY 1, 2, 3, 4
	UNION ALL
	SELECT t.type_code, t.price, 1, ` + span("b.created_at") + `, count(*)
		FROM backs k CROSS JOIN tickets t ON t.id = k.ticket_id CROSS JOIN bookings b ON b.id = t.booking_id
		GROUP BY 1, 2, 3, 4
	UNION ALL
	SELECT t.type_code, t.price, 1, ` + span("b.created_at") + `, count(*)
		FROM sales s CROSS JOIN exchanges x ON x.to_booking = s.booking_id
		CROSS JOIN tickets t ON t.id BETWEEN x.from_booking * 32 AND x.from_booking * 32 + 31 AND +t.exchange_id = x.id
		JOIN bookings b ON b.id = x.from_booking
		GROUP BY 1, 2, 3, 4`
}

var (
	qTaxLinesWindow = taxLinesSQL(`p.at >= ?1 AND p.at < ?2`)
	qTaxLinesShift  = taxLinesSQL(`p.at >= ?1 AND p.at < ?2 AND p.shift_id = ?3`) // by time: payments_by_at
)

// TaxLines adds up the ticket lines of q.
func (d driver) TaxLines(ctx context.Context, q store.TaxQuery) ([]store.TaxLines, error) {
	if q.Shift == 0 {
		if err := oneSite(q.Site); err != nil {
			return nil, err
		}
	}
	js, err := breaksJSON(q.Breaks)
	if err != nil {
		return nil, err
	}
	query := qTaxLinesWindow
	if q.Shift != 0 {
		query = qTaxLinesShift
	}
	rows, err := d.s.readRows(ctx, query, q.From.UnixMilli(), q.To.UnixMilli(), q.Shift, string(js))
	if err != nil {
		return nil, d.s.translate("tax lines", err)
	}
	defer rows.Close()
	var out []store.TaxLines
	for rows.Next() {
		l := store.TaxLines{Key: booking.TaxKey{Kind: booking.TaxTicketType}}
		if err := rows.Scan(&l.Key.Code, &l.Amount, &l.Back, &l.Span, &l.N); err != nil {
			return nil, d.s.translate("tax lines", err)
		}
		out = append(out, l)
	}
	return out, d.s.translate("tax lines", rows.Err())
}
