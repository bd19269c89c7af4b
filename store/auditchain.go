package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"boxoffice/booking"
)

// The audit trail is a hash chain: each row carries SHA-256 over the
// previous row's hash, its own id and its fields (ChainHash), so a row
// removed, changed or slipped in breaks every later link, and check
// names the first. A whole trail rewritten with fresh hashes is seen
// against an anchor kept outside the database: the chain head each
// backup prints (ChainHead).
//
// SQLite hashes each row as it is inserted (its one writer knows the row
// before). PostgreSQL's writers run side by side, so its rows are
// inserted unchained and a seal (SealAudit) chains them in id order
// every few seconds, with the trail locked against new rows for the
// moment it takes; rows from before the chain existed are chained by the
// first seal on either engine.

// ChainHead is the last chained row of the trail: the anchor a backup
// prints. A zero ChainHead is a trail with no row chained yet.
type ChainHead struct {
	ID   int64
	Hash []byte
}

// String is the anchor as an operator writes it down: the row and the
// first 16 hex digits of its hash (64 bits: enough to tell a rewrite).
func (h ChainHead) String() string {
	switch {
	case h.ID == 0:
		return "none yet"
	case len(h.Hash) < 8:
		return fmt.Sprintf("row %d, not chained yet", h.ID)
	}
	return fmt.Sprintf("row %d, %s", h.ID, hex.EncodeToString(h.Hash)[:16])
}

// AuditLink is one row of the trail as the chain covers it: its id, its
// fields and the hash stored with it (nil: not chained yet).
type AuditLink struct {
	ID   int64
	Row  AuditRow
	Hash []byte
}

// ChainHash is the hash of row id with fields r after the row whose hash
// is prev (nil for the first row). Every field is written with its
// length, so no two rows encode alike.
func ChainHash(prev []byte, id int64, r AuditRow) []byte {
	h := sha256.New()
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(len(prev)))
	b = append(b, prev...)
	for _, n := range []int64{id, r.At, r.ShowID, r.BookingID, r.ShiftID, int64(r.Amount)} {
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	for _, s := range []string{r.Actor, r.Role, r.Terminal, string(r.Action), r.Detail} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	h.Write(b)
	return h.Sum(nil)
}

// ChainCheck verifies the trail fed to it in id order, row by row, and
// keeps the first broken link. Rows not chained yet may only come last
// (PostgreSQL's rows since its last seal).
type ChainCheck struct {
	head      ChainHead
	unchained int64 // the first row seen without a hash, 0: none
	broken    string
}

// Add checks the next row; it reports false once the chain is broken
// (the rest need not be read).
func (c *ChainCheck) Add(l AuditLink) bool {
	if c.broken != "" {
		return false
	}
	switch {
	case l.Hash == nil:
		if c.unchained == 0 {
			c.unchained = l.ID
		}
	case c.unchained != 0:
		c.broken = fmt.Sprintf("the audit chain is broken at row %d: row %d before it carries no hash", l.ID, c.unchained)
	case !bytes.Equal(l.Hash, ChainHash(c.head.Hash, l.ID, l.Row)):
		after := "the start of the trail"
		if c.head.ID != 0 {
			after = fmt.Sprintf("row %d", c.head.ID)
		}
		c.broken = fmt.Sprintf("the audit chain is broken at row %d: it does not follow %s (a row was removed, changed or added)", l.ID, after)
	default:
		c.head = ChainHead{ID: l.ID, Hash: l.Hash}
	}
	return c.broken == ""
}

// Problem is the first broken link, "" when the chain holds.
func (c *ChainCheck) Problem() string { return c.broken }

// Head is the last row the check found chained.
func (c *ChainCheck) Head() ChainHead { return c.head }

// ChainTx is the audit chain's typed queries.
type ChainTx interface {
	// AuditChainHead reads the last row that carries a hash, a zero
	// ChainHead when none does.
	AuditChainHead() (ChainHead, error)
	// AuditUnchained reads up to limit rows after row afterID and up to
	// row upTo, in id order; none when the trail ends there.
	AuditUnchained(afterID, upTo int64, limit int) ([]AuditLink, error)
	// ChainAudit stores each link's Hash on its row, which had none.
	ChainAudit(links []AuditLink) error
}

// sealBatch bounds the rows one read of SealAudit holds in memory, and
// makes one statement of each batch's hashes on PostgreSQL.
const sealBatch = 500

// SealAudit chains the rows after the chain head up to row upTo inside
// tx, in id order, and returns the new head. Every row up to upTo must be
// committed already or never be (a driver with writers side by side
// waits for them first). A driver calls it: PostgreSQL's seal every few
// seconds and before its check, SQLite's writer when it finds rows from
// before the chain. Two seals at once write the same hashes: the chain
// is a function of the rows.
func SealAudit(tx ChainTx, upTo int64) (ChainHead, error) {
	head, err := tx.AuditChainHead()
	if err != nil {
		return head, err
	}
	for {
		rows, err := tx.AuditUnchained(head.ID, upTo, sealBatch)
		if err != nil || len(rows) == 0 {
			return head, err
		}
		for i, l := range rows {
			rows[i].Hash = ChainHash(head.Hash, l.ID, l.Row)
			head = ChainHead{ID: l.ID, Hash: rows[i].Hash}
		}
		if err := tx.ChainAudit(rows); err != nil {
			return head, err
		}
	}
}

// ScanLink reads one row of the trail as the chain hashes it: id, at,
// actor, role, terminal, action, show, booking, shift (0 for none),
// amount, detail and hash, in that order.
func ScanLink(row Scanner) (AuditLink, error) {
	var l AuditLink
	var action string
	var amount int64
	r := &l.Row
	err := row.Scan(&l.ID, &r.At, &r.Actor, &r.Role, &r.Terminal, &action, &r.ShowID, &r.BookingID, &r.ShiftID, &amount, &r.Detail, &l.Hash)
	r.Action, r.Amount = booking.AuditAction(action), booking.Money(amount)
	return l, err
}

// FirstBrokenLink walks the trail's rows in id order (ScanLink) and names
// its first broken link; nil when it holds. The caller closes rows.
func FirstBrokenLink(rows Rows) ([]string, error) {
	var c ChainCheck
	for rows.Next() {
		l, err := ScanLink(rows)
		if err != nil {
			return nil, err
		}
		if !c.Add(l) {
			return []string{c.Problem()}, nil
		}
	}
	return nil, rows.Err()
}
