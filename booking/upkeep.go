package booking

import "time"

// BackupInfo is what a backup wrote: the file, how many bookings it
// holds, its size and how long it took.
type BackupInfo struct {
	Path     string        `json:"path"`
	Bookings int64         `json:"bookings"`
	Bytes    int64         `json:"bytes"`
	Took     time.Duration `json:"took_ns"`
	// AuditHead is the audit chain's head in the copy ("row N, <hex>"):
	// the anchor to keep apart from the backup, against which a trail
	// rewritten whole with fresh hashes shows.
	AuditHead string `json:"audit_head"`
}

// CheckReport is a database file checked whole: SQLite's own integrity
// check (the pages, the indexes against their tables), its schema against
// the one boxoffice's migrations make (every table, index, trigger and
// view, no more), and every invariant of the store (CheckInvariants). It
// is whole when the three lists are empty. Unchecked says the invariants
// were not read at all: a table or a view is not boxoffice's, so reading
// the data would mean nothing (or run someone else's SQL).
type CheckReport struct {
	Path      string   `json:"path"`
	Bookings  int64    `json:"bookings"`
	Integrity []string `json:"integrity"`
	Schema    []string `json:"schema"`
	Problems  []string `json:"problems"`
	Unchecked bool     `json:"invariants_unchecked,omitempty"`
	// AuditHead is the audit chain's last row, as ChainHead prints it,
	// when the invariants were read; "" when they were not.
	AuditHead string `json:"audit_head,omitempty"`
}

// OK reports whether the file passed every check.
func (r CheckReport) OK() bool {
	return len(r.Integrity) == 0 && len(r.Schema) == 0 && len(r.Problems) == 0 && !r.Unchecked
}

// AllProblems is every problem the check found, in the order it checked.
func (r CheckReport) AllProblems() []string {
	out := make([]string, 0, len(r.Integrity)+len(r.Schema)+len(r.Problems))
	out = append(append(append(out, r.Integrity...), r.Schema...), r.Problems...)
	return out
}
