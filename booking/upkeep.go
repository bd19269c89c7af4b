package booking

import "time"

// BackupInfo is what a backup wrote: the file, how many bookings it
// holds, its size and how long it took.
type BackupInfo struct {
	Path     string        `json:"path"`
	Bookings int64         `json:"bookings"`
	Bytes    int64         `json:"bytes"`
	Took     time.Duration `json:"took_ns"`
}

// CheckReport is a database file checked whole: SQLite's own integrity
// check (the pages, the indexes against their tables) and every
// invariant of the store (CheckInvariants). It is whole when both lists
// are empty.
type CheckReport struct {
	Path      string   `json:"path"`
	Bookings  int64    `json:"bookings"`
	Integrity []string `json:"integrity"`
	Problems  []string `json:"problems"`
}

// OK reports whether the file passed every check.
func (r CheckReport) OK() bool { return len(r.Integrity) == 0 && len(r.Problems) == 0 }
