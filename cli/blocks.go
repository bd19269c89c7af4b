package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"boxoffice/booking"
)

// block, unblock, house, release-house: seats kept out of sale.

const blockLong = `Keeps seats out of sale: they no longer count as free, best available and
a clash's suggestions never offer them, and selling one is refused (exit
code 3). --hall-wide blocks them for every show of the show's hall that
starts from now on (a broken seat). A seat that is sold or held cannot be
blocked (exit code 3, naming it); nothing is written unless every seat
named can be.`

const houseLong = `Holds seats of one show back as house seats (for staff, press or guests):
kept out of sale like blocked seats until a supervisor or manager releases
them with release-house.`

// blockFlags binds block's and unblock's flags; kind is what the seats
// are kept out of sale as, release whether they are put back on sale.
func blockFlags(kind booking.BlockKind, release bool) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		var reason *string
		if !release {
			reason = fs.String("reason", "", "why, kept with the block (`R`)")
		} else {
			reason = new(string)
		}
		hallWide := new(bool)
		if kind == booking.BlockBlocked {
			fs.BoolVar(hallWide, "hall-wide", false, "for every show of the hall from now on, not this show only")
		}
		return func(c *env, pos []string) error {
			return c.block(pos, booking.BlockRequest{Kind: kind, HallWide: *hallWide, Reason: *reason}, release)
		}
	}
}

// block runs block, unblock, house and release-house.
func (c *env) block(pos []string, req booking.BlockRequest, release bool) error {
	if len(pos) < 2 {
		return usagef("usage: boxoffice %s SHOW SEAT... (seats like G7)", blockVerb(req.Kind, release))
	}
	var err error
	if req.ShowID, err = showArg(pos[0]); err != nil {
		return err
	}
	req.Seats = pos[1:]
	if err := req.Validate(); err != nil {
		return usagef("%s", booking.ErrorMessage(err))
	}
	return c.withStore(func(st backend) error {
		do := st.BlockSeats
		if release {
			do = st.UnblockSeats
		}
		blocks, err := do(c.ctx, booking.System, req)
		if err != nil {
			return err
		}
		c.print(blockView{blocks, req, release})
		return nil
	})
}

// blockVerb is the command of a kind and direction.
func blockVerb(kind booking.BlockKind, release bool) string {
	switch {
	case kind == booking.BlockHouse && release:
		return "release-house"
	case kind == booking.BlockHouse:
		return "house"
	case release:
		return "unblock"
	}
	return "block"
}

// blockView is what a block or its lifting did.
type blockView struct {
	blocks  []booking.SeatBlock
	req     booking.BlockRequest
	release bool
}

// blockJSON is a seat kept out of sale, as --json prints it.
type blockJSON struct {
	Seat     string `json:"seat"`
	Kind     string `json:"kind"`
	HallWide bool   `json:"hall_wide"`
	Reason   string `json:"reason"`
	By       string `json:"by"`
	At       string `json:"at"`
}

func newBlockJSON(b booking.SeatBlock) *blockJSON {
	return &blockJSON{b.Seat.Label, string(b.Kind), b.HallWide, booking.Clean(b.Reason), booking.Clean(b.By), b.At.Format(time.RFC3339)}
}

func (v blockView) jsonValue() any {
	out := make([]*blockJSON, 0, len(v.blocks))
	for _, b := range v.blocks {
		out = append(out, newBlockJSON(b))
	}
	return map[string]any{"show": v.req.ShowID, "action": blockVerb(v.req.Kind, v.release), "seats": out}
}

func (v blockView) writeText(w io.Writer) {
	what := map[string]string{"block": "Blocked", "unblock": "Unblocked", "house": "Held back as house seats", "release-house": "Released into sale"}[blockVerb(v.req.Kind, v.release)]
	scope := fmt.Sprintf("for show %d", v.req.ShowID)
	if v.req.HallWide {
		scope = "for every show of the hall from now on"
	}
	labels := make([]string, len(v.blocks))
	for i, b := range v.blocks {
		labels[i] = b.Seat.Label
	}
	fmt.Fprintf(w, "%s: %s %s", what, strings.Join(labels, " "), scope)
	if r := booking.CleanLine(v.req.Reason, booking.MaxBlockReason); r != "" && !v.release {
		fmt.Fprintf(w, " (%s)", r)
	}
	fmt.Fprintln(w, ".")
}
