package pg

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The settings' and tax's queries on PostgreSQL (store.SettingsTx,
// SettingsReads, TaxTx, TaxReads), on 0029_settings_and_tax.sql: a key's
// value at site 0 is the chain's, a site's own row overrides it.

var (
	_ booking.Settings = (*Store)(nil)
	_ booking.Taxes    = (*Store)(nil)
)

// maxSettingRows and maxTaxRates bound what a read of either table
// hands over: far more than a chain sets.
const (
	maxSettingRows = 10000
	maxTaxRates    = 100000
)

// SettingValue reads the value kept for key at site.
func (t *tx) SettingValue(key string, site int64) (string, error) {
	var v string
	err := t.QueryRow(t.ctx, `SELECT value FROM settings WHERE key = $1 AND site = $2`, key, site).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// PutSetting keeps value for key at site: one upsert, so two managers at
// once leave one row, the later one's.
func (t *tx) PutSetting(key string, site int64, value string) error {
	_, err := t.Exec(t.ctx, `INSERT INTO settings (key, site, value) VALUES ($1, $2, $3)
		ON CONFLICT (key, site) DO UPDATE SET value = excluded.value`, key, site, value)
	return err
}

// DeleteSetting removes the value of key at site.
func (t *tx) DeleteSetting(key string, site int64) error {
	_, err := t.Exec(t.ctx, `DELETE FROM settings WHERE key = $1 AND site = $2`, key, site)
	return err
}

// ReadSettings lists every value kept, at every site.
func (d driver) ReadSettings(ctx context.Context) ([]booking.SettingRow, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT key, site, value FROM settings ORDER BY site, key LIMIT $1`, maxSettingRows)
	if err != nil {
		return nil, d.s.translate("settings", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.SettingRow, error) {
		var row booking.SettingRow
		err := r.Scan(&row.Key, &row.Site, &row.Value)
		return row, err
	})
	return out, d.s.translate("settings", err)
}

// InsertTaxRate appends a rate to the history.
func (t *tx) InsertTaxRate(r booking.TaxRate) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO tax_rates (kind, code, rate, valid_from, set_by, set_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		string(r.Key.Kind), r.Key.Code, int64(r.Rate), r.From.UnixMilli(), r.SetBy, r.SetAt.UnixMilli()).Scan(&id)
	return id, err
}

// ReadTaxRates lists every rate ever set, oldest first.
func (d driver) ReadTaxRates(ctx context.Context) (booking.TaxRates, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT id, kind, code, rate, valid_from, set_by, set_at FROM tax_rates ORDER BY id LIMIT $1`, maxTaxRates)
	if err != nil {
		return nil, d.s.translate("tax rates", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.TaxRate, error) {
		var x booking.TaxRate
		var kind string
		var from, at int64
		err := r.Scan(&x.ID, &kind, &x.Key.Code, &x.Rate, &from, &x.SetBy, &at)
		x.Key.Kind, x.From, x.SetAt = booking.TaxKind(kind), time.UnixMilli(from), time.UnixMilli(at)
		return x, err
	})
	return out, d.s.translate("tax rates", err)
}

// taxLinesSQL adds up the ticket lines of the sales, refunds and
// exchanges whose money was taken where cond says (on payments p), each
// with the span of rate changes ($brk, unix milliseconds) its sale falls
// in, kept to the shows of site $site unless it is 0. A booking's first
// sale payment stands for its sale; its tickets are the range of ids it
// owns (the tickets' CHECK id / 32 = booking_id); a ticket refunded in parts is one
// line.
func taxLinesSQL(cond string, brk, site int) string {
	b, st := "$"+strconv.Itoa(brk), "$"+strconv.Itoa(site)
	span := func(at string) string {
		return `(SELECT count(*) FROM unnest(` + b + `::bigint[]) AS brk(at) WHERE brk.at <= ` + at + `)`
	}
	atSite := `(` + st + `::bigint = 0 OR EXISTS (SELECT 1 FROM bookings sb JOIN shows sh ON sh.id = sb.show_id JOIN halls h ON h.id = sh.hall_id
		WHERE sb.id = p.booking_id AND h.site_id = ` + st + `))`
	return `WITH sales AS (SELECT p.booking_id, p.at FROM payments p WHERE p.kind = 'sale' AND ` + cond + ` AND ` + atSite + `
		AND p.id = (SELECT min(q.id) FROM payments q WHERE q.booking_id = p.booking_id AND q.kind = 'sale')),
	backs AS (SELECT DISTINCT p.ticket_id FROM payments p WHERE p.kind = 'refund' AND p.ticket_id IS NOT NULL AND ` + cond + ` AND ` + atSite + `)
	SELECT t.type_code, t.price, false, ` + span("s.at") + `, count(*)
		FROM sales s JOIN tickets t ON t.id BETWEEN s.booking_id * 32 AND s.booking_id * 32 + 31
		GROUP BY 1, 2, 3, 4
	UNION ALL
	SELECT t.type_code, t.price, true, ` + span("b.created_at") + `, count(*)
		FROM backs k JOIN tickets t ON t.id = k.ticket_id JOIN bookings b ON b.id = t.booking_id
		GROUP BY 1, 2, 3, 4
	UNION ALL
	SELECT t.type_code, t.price, true, ` + span("b.created_at") + `, count(*)
		FROM sales s JOIN exchanges x ON x.to_booking = s.booking_id
		JOIN tickets t ON t.id BETWEEN x.from_booking * 32 AND x.from_booking * 32 + 31 AND t.exchange_id = x.id
		JOIN bookings b ON b.id = x.from_booking
		GROUP BY 1, 2, 3, 4`
}

var (
	qTaxLinesWindow = taxLinesSQL(`p.at >= $1 AND p.at < $2`, 3, 4)
	qTaxLinesShift  = taxLinesSQL(`p.shift_id = $1`, 2, 3)
)

// TaxLines adds up the ticket lines of q.
func (d driver) TaxLines(ctx context.Context, q store.TaxQuery) ([]store.TaxLines, error) {
	breaks := store.BreakMillis(q.Breaks)
	var rows pgx.Rows
	var err error
	if q.Shift != 0 {
		rows, err = d.s.pool.Query(ctx, qTaxLinesShift, q.Shift, breaks, int64(0))
	} else {
		rows, err = d.s.pool.Query(ctx, qTaxLinesWindow, q.From.UnixMilli(), q.To.UnixMilli(), breaks, q.Site)
	}
	if err != nil {
		return nil, d.s.translate("tax lines", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.TaxLines, error) {
		l := store.TaxLines{Key: booking.TaxKey{Kind: booking.TaxTicketType}}
		var span, n int64
		err := r.Scan(&l.Key.Code, &l.Amount, &l.Back, &span, &n)
		l.Span, l.N = int(span), int(n)
		return l, err
	})
	return out, d.s.translate("tax lines", err)
}
