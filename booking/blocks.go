package booking

import (
	"strings"
	"time"
)

// BlockKind says why a seat is kept out of sale.
type BlockKind string

const (
	// BlockBlocked is a seat nobody may sell: broken, kept for crew. A
	// manager blocks and unblocks it, for one show or for every show of
	// the hall from now on.
	BlockBlocked BlockKind = "blocked"
	// BlockHouse is a seat of one show held back for staff, press or
	// guests, which only a supervisor or manager releases into sale.
	BlockHouse BlockKind = "house"
)

// ParseBlockKind is the inverse of the kind's string.
func ParseBlockKind(s string) (BlockKind, bool) {
	switch k := BlockKind(s); k {
	case BlockBlocked, BlockHouse:
		return k, true
	}
	return "", false
}

// SeatBlock is one seat kept out of sale, for one show or, HallWide, for
// every show of its hall that starts after At.
type SeatBlock struct {
	Seat     Seat
	Kind     BlockKind
	HallWide bool
	Reason   string
	By       string
	At       time.Time
}

// MaxBlockReason is the longest reason a block keeps, in runes.
const MaxBlockReason = 80

// BlockRequest names seats of a show to keep out of sale (BlockSeats) or
// to put back on sale (UnblockSeats).
type BlockRequest struct {
	ShowID int64
	Seats  []string // labels, "G7"
	Kind   BlockKind
	// HallWide blocks (or unblocks) the seats for every show of the
	// show's hall that starts from now on: a broken seat. Only for
	// BlockBlocked.
	HallWide bool
	Reason   string
	// Owner, when set, is the asking session: seats of the show it holds
	// itself (a seat map's selection) are let go and blocked in the same
	// transaction instead of being refused as held.
	Owner string
}

// Validate checks a block request before anything is read or written.
func (r BlockRequest) Validate() error {
	if r.ShowID <= 0 {
		return Errorf(EInvalid, "Name the show whose seats to block.")
	}
	if _, ok := ParseBlockKind(string(r.Kind)); !ok {
		return Errorf(EInvalid, "A seat is kept out of sale as blocked or as a house seat.")
	}
	if r.HallWide && r.Kind != BlockBlocked {
		return Errorf(EInvalid, "House seats are held back for one show, not for the whole hall.")
	}
	if len(r.Seats) == 0 {
		return Errorf(EInvalid, "Name at least one seat, like G7.")
	}
	for _, l := range r.Seats {
		if strings.TrimSpace(l) == "" {
			return Errorf(EInvalid, "A seat label is empty.")
		}
	}
	return nil
}

// BlockAction is the action a change to blocks of kind k needs: a manager
// blocks and unblocks seats and holds house seats back; releasing a house
// seat into sale is a supervisor's.
func BlockAction(k BlockKind, release bool) Action {
	if release && k == BlockHouse {
		return ActionReleaseHouse
	}
	return ActionBlockSeats
}
