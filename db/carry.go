package db

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
)

// CarrySource reads a SQLite cinema at one moment for `migrate --to`:
// one read transaction on one read-only connection, so every table is
// read from the same snapshot. It satisfies pg.CarrySource.
type CarrySource struct {
	dbh  *sql.DB
	conn *sql.Conn
	tx   *sql.Tx
}

// OpenCarrySource opens path read-only. The caller has opened it with
// Open first (which migrates it to this binary's schema and refuses a
// file that is not boxoffice's) and keeps other processes out of it.
func OpenCarrySource(ctx context.Context, path string) (*CarrySource, error) {
	dbh, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return nil, err
	}
	dbh.SetMaxOpenConns(1)
	conn, err := dbh.Conn(ctx)
	if err != nil {
		dbh.Close()
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		conn.Close()
		dbh.Close()
		return nil, err
	}
	return &CarrySource{dbh: dbh, conn: conn, tx: tx}, nil
}

// Close ends the read and closes the file.
func (c *CarrySource) Close() error {
	c.tx.Rollback()
	c.conn.Close()
	return c.dbh.Close()
}

// Tables lists the file's tables but SQLite's own.
func (c *CarrySource) Tables(ctx context.Context) ([]string, error) {
	return c.strings(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
}

// Columns lists a table's columns in their order.
func (c *CarrySource) Columns(ctx context.Context, table string) ([]string, error) {
	return c.strings(ctx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
}

// Count is how many rows table has.
func (c *CarrySource) Count(ctx context.Context, table string) (int64, error) {
	var n int64
	err := c.tx.QueryRowContext(ctx, `SELECT count(*) FROM `+quoteIdent(table)).Scan(&n)
	return n, err
}

// Rows calls each with every row of table, cols' values in order.
func (c *CarrySource) Rows(ctx context.Context, table string, cols []string, each func([]any) error) error {
	quoted := make([]string, len(cols))
	for i, col := range cols {
		quoted[i] = quoteIdent(col)
	}
	rows, err := c.tx.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM %s`, strings.Join(quoted, ", "), quoteIdent(table)))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := each(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (c *CarrySource) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := c.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
