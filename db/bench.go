package db

import (
	"context"
	"database/sql"
	"time"

	"boxoffice/store"
)

// The benchmarks' own SQL (boxoffice bench and bench --scale): the
// machine's raw commit rate, and what a benchmark's file holds afterwards.
// Each opens a connection of its own to the file, apart from any Store, so
// what it reads is what was committed, not what a Store remembers.

// RawCommitRate is the machine's limit for durable single-row
// transactions on one connection, in transactions a second, at the
// synchronous mode sync ("full" or "normal"): what any
// one-transaction-per-booking design is capped at. It creates the file
// path, in the pages a Store's new file has, and runs for dur.
func RawCommitRate(path, sync string, dur time.Duration) (float64, error) {
	if err := smallPages(path, time.Second); err != nil {
		return 0, err
	}
	dbh, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous("+sync+")&_txlock=immediate")
	if err != nil {
		return 0, err
	}
	defer dbh.Close()
	dbh.SetMaxOpenConns(1)
	if _, err := dbh.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		return 0, err
	}
	n := 0
	start := time.Now()
	for time.Since(start) < dur {
		tx, err := dbh.Begin()
		if err != nil {
			return 0, err
		}
		if _, err := tx.Exec(`INSERT INTO t (v) VALUES ('x')`); err != nil {
			tx.Rollback()
			return 0, err
		}
		if err := tx.Commit(); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// AuditSales reads the database file at path back with a fresh
// connection.
func AuditSales(ctx context.Context, path string) (store.SalesAudit, error) {
	var a store.SalesAudit
	dbh, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return a, err
	}
	defer dbh.Close()
	if err := dbh.QueryRowContext(ctx, `SELECT count(*) FROM bookings`).Scan(&a.Bookings); err != nil {
		return a, err
	}
	err = dbh.QueryRowContext(ctx, `SELECT count(*) FROM (
		SELECT b.show_id, t.seat_id FROM tickets t JOIN bookings b ON b.id = t.booking_id
		WHERE t.status != 'void' GROUP BY 1, 2 HAVING count(*) > 1)`).Scan(&a.DoubleSold)
	if err != nil {
		return a, err
	}
	err = dbh.QueryRowContext(ctx, `SELECT count(*) FROM audit WHERE action = 'sale'`).Scan(&a.AuditSales)
	return a, err
}

// SampleBooking is a booking bench --scale looks up the ways a clerk does.
type SampleBooking struct{ Number, Phone, Customer string }

// SampleBookings picks up to n bookings with a customer's name and phone
// from the whole history at path, at random (a one-off scan, not
// measured).
func SampleBookings(ctx context.Context, path string, n int) ([]SampleBooking, error) {
	dbh, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer dbh.Close()
	rows, err := dbh.QueryContext(ctx, `SELECT number, phone, customer FROM bookings WHERE customer <> '' AND phone <> '' ORDER BY random() LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SampleBooking
	for rows.Next() {
		var b SampleBooking
		if err := rows.Scan(&b.Number, &b.Phone, &b.Customer); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// CountBookings is how many bookings the file at path holds.
func CountBookings(ctx context.Context, path string) (int64, error) {
	dbh, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer dbh.Close()
	var n int64
	err = dbh.QueryRowContext(ctx, `SELECT count(*) FROM bookings`).Scan(&n)
	return n, err
}
