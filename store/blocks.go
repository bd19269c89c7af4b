package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"boxoffice/booking"
)

// Seats kept out of sale (booking.SeatBlocks): blocked and house seats. A
// block is a row in force; lifting it deletes the row and the audit trail
// keeps the history. A seat the hall's layout blocks reads as blocked for
// every show of the hall, by LayoutBlocker.
//
// A block and a hold of one seat racing have one winner: a block first
// holds off every write of holds and claims (LockSeatClaims), so it sees
// every claim made before it, and the database refuses a live claim of a
// seat kept out of sale made after it (both engines keep that guarantee
// themselves, whatever the Go code does).

// BlocksTx is what blocks and unblocks ask of a transaction.
type BlocksTx interface {
	// LockSeatClaims waits for every write of holds and seat claims under
	// way to end and holds new ones off until this transaction ends, so
	// what it reads of the claims stays true until it commits; two such
	// transactions take turns. (SQLite, one writer: nothing to do.)
	LockSeatClaims() error
	// SeatBlocksOf reads the blocks of seats: the show's own, and the
	// hall's hall-wide ones whenever they were made.
	SeatBlocksOf(showID, hallID int64, seatIDs []int64) ([]BlockRow, error)
	// LiveClaimsOf reads the claims of seats of a show that are held or
	// sold, by seat, whether or not their hold has lapsed.
	LiveClaimsOf(showID int64, seatIDs []int64) (map[int64]LiveClaim, error)
	// ReleaseHeldSeats lets go of seats a hold of the show holds (the
	// whole hold when none is left), as a release does.
	ReleaseHeldSeats(holdID, showID int64, seatIDs []int64) error
	// ExpireStaleHolds expires the show's lapsed holds (HoldLive) and
	// their claims, lapsing their reservations (LapseReservations), and
	// says how many holds it expired.
	ExpireStaleHolds(showID int64) (int, error)
	// FirstClaimInHall reads, among the shows of a hall that start after
	// after, the earliest show's live claim (sold, or held by a live
	// hold) of any of seats; found is false when there is none.
	FirstClaimInHall(hallID int64, seatIDs []int64, after time.Time) (c HallClaim, found bool, err error)
	// InsertBlocks writes the blocks of b.
	InsertBlocks(b NewBlocks) error
	// DeleteBlocks lifts blocks of seats: a show's own, or with hallWide
	// the hall's hall-wide ones.
	DeleteBlocks(showID, hallID int64, seatIDs []int64, hallWide bool) error
}

// BlockRow is one block of a seat as a change to blocks meets it.
type BlockRow struct {
	SeatID   int64
	Kind     booking.BlockKind
	By       string
	HallWide bool
}

// LiveClaim is a claim of a seat that is held or sold.
type LiveClaim struct {
	Sold   bool
	Owner  string // its hold's
	HoldID int64
}

// HallClaim is a live claim of a seat in a show of a hall to come.
type HallClaim struct {
	SeatID int64
	Sold   bool
	Starts time.Time // the show's
}

// NewBlocks are blocks of one kind to write.
type NewBlocks struct {
	ShowID int64 // 0: hall-wide, for every show of the hall from now on
	HallID int64
	Seats  []int64
	Kind   booking.BlockKind
	Reason string
	By     string
	At     time.Time
}

// LayoutBlocker is who a seat blocked in the hall's layout is blocked by.
const LayoutBlocker = "layout"

// BlockWords says what a block of kind makes a seat: "blocked", "a house
// seat".
func BlockWords(kind booking.BlockKind) string {
	if kind == booking.BlockHouse {
		return "a house seat"
	}
	return "blocked"
}

// KeepBlock puts in blocks, by seat, a block of seat in force for a show
// as a driver read it (kind, reason, maker, time in unix milliseconds),
// unless the block already there prevails: where a hall-wide block and
// the show's own both hold a seat, blocked wins over house and hall-wide
// over the show's own. Its reason and maker are cleaned for a screen.
func KeepBlock(blocks map[int64]booking.SeatBlock, seat booking.Seat, kind, reason, by string, at int64, hallWide bool) {
	b := booking.SeatBlock{Seat: seat, HallWide: hallWide, At: time.UnixMilli(at),
		Reason: booking.CleanLine(reason, booking.MaxBlockReason), By: booking.CleanLine(by, 40)}
	b.Kind, _ = booking.ParseBlockKind(kind)
	if prev, ok := blocks[seat.ID]; ok && (prev.Kind == booking.BlockBlocked && b.Kind != booking.BlockBlocked || prev.HallWide) {
		return
	}
	blocks[seat.ID] = b
}

// OutOfSale is the set of seats blocks keep out of sale, for a hold's
// taken test and a clash's suggestions.
func OutOfSale(blocks map[int64]booking.SeatBlock) map[int64]bool {
	out := make(map[int64]bool, len(blocks))
	for id := range blocks {
		out[id] = true
	}
	return out
}

// blockTarget checks a block request and resolves its show, hall and
// seats, before the transaction: a hall's layout never changes.
func (s *Store) blockTarget(ctx context.Context, req booking.BlockRequest) (booking.Show, *booking.Hall, []booking.Seat, error) {
	if err := req.Validate(); err != nil {
		return booking.Show{}, nil, nil, err
	}
	sh, err := s.prog.Show(ctx, req.ShowID)
	if err != nil {
		return sh, nil, nil, err
	}
	hall, err := s.prog.Hall(ctx, sh.HallID)
	if err != nil {
		return sh, nil, nil, err
	}
	var seats []booking.Seat
	seen := map[int64]bool{}
	for _, l := range req.Seats {
		seat, ok := hall.SeatByLabel(strings.TrimSpace(l))
		if !ok {
			return sh, nil, nil, booking.Errorf(booking.EInvalid, "There is no seat %s in %s.", booking.CleanLine(l, 8), booking.CleanLine(hall.Name, 40))
		}
		if !seen[seat.ID] {
			seen[seat.ID] = true
			seats = append(seats, seat)
		}
	}
	return sh, hall, seats, nil
}

// seatIDs lists the seats' ids, in order.
func seatIDs(seats []booking.Seat) []int64 {
	ids := make([]int64, len(seats))
	for i, seat := range seats {
		ids[i] = seat.ID
	}
	return ids
}

// blockRowsOf returns, by seat, the show's own block of each and the
// hall-wide block of each, the layout's among them; a seat may have both.
func blockRowsOf(tx Tx, sh booking.Show, seats []booking.Seat) (own, hallWide map[int64]BlockRow, err error) {
	own, hallWide = map[int64]BlockRow{}, map[int64]BlockRow{}
	for _, seat := range seats {
		if seat.Blocked {
			hallWide[seat.ID] = BlockRow{SeatID: seat.ID, Kind: booking.BlockBlocked, By: LayoutBlocker, HallWide: true}
		}
	}
	rows, err := tx.SeatBlocksOf(sh.ID, sh.HallID, seatIDs(seats))
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rows {
		if r.HallWide {
			hallWide[r.SeatID] = r
		} else {
			own[r.SeatID] = r
		}
	}
	return own, hallWide, nil
}

// salesOpen refuses a block of a show whose sales closed or that was
// cancelled, as the transaction reads its life now.
func (s *Store) salesOpen(tx Tx, showID int64) error {
	sh, err := LiveShow(tx, s.prog, showID)
	if err != nil {
		return err
	}
	return booking.SalesOpen(sh, tx.Now())
}

// BlockSeats keeps seats of a show out of sale, all or nothing: blocked
// (HallWide: for every show of the hall from now on) or house seats of
// the show. Seats the asking session holds itself (req.Owner) are let go
// and blocked in the one transaction.
func (s *Store) BlockSeats(ctx context.Context, actor booking.Actor, req booking.BlockRequest) ([]booking.SeatBlock, error) {
	if err := booking.Authorize(actor, booking.BlockAction(req.Kind, false)); err != nil {
		return nil, err
	}
	sh, hall, seats, err := s.blockTarget(ctx, req)
	if err != nil {
		return nil, err
	}
	reason := booking.CleanLine(req.Reason, booking.MaxBlockReason)
	return write(s, ctx, actor, Write{Op: "block seats"}, func(tx Tx) ([]booking.SeatBlock, error) {
		if err := tx.LockSeatClaims(); err != nil {
			return nil, err
		}
		if !req.HallWide {
			if err := s.salesOpen(tx, sh.ID); err != nil {
				return nil, err
			}
		}
		own, hallWide, err := blockRowsOf(tx, sh, seats)
		if err != nil {
			return nil, err
		}
		for _, seat := range seats {
			if _, ok := hallWide[seat.ID]; ok {
				return nil, booking.Errorf(booking.EInvalid, "%s is already blocked for every show of %s.", seat.Label, booking.CleanLine(hall.Name, 40))
			}
			if r, ok := own[seat.ID]; ok && !req.HallWide {
				return nil, booking.Errorf(booking.EInvalid, "%s is already %s for this show.", seat.Label, BlockWords(r.Kind))
			}
		}
		if err := releaseOwn(tx, sh, seats, req.Owner); err != nil {
			return nil, err
		}
		if err := s.checkUnclaimed(tx, sh, seats, req.HallWide); err != nil {
			return nil, err
		}
		return insertBlocks(tx, actor, sh, seats, req, reason)
	})
}

// releaseOwn lets go of the seats owner holds itself among seats, so a
// seat map's selection is blocked in one transaction with nothing between
// the release and the block.
func releaseOwn(tx Tx, sh booking.Show, seats []booking.Seat, owner string) error {
	if owner == "" {
		return nil
	}
	live, err := tx.LiveClaimsOf(sh.ID, seatIDs(seats))
	if err != nil {
		return err
	}
	byHold := map[int64][]int64{}
	var holds []int64 // in seat order, so the writes run in one order
	for _, seat := range seats {
		if c, ok := live[seat.ID]; ok && !c.Sold && c.Owner == owner {
			if byHold[c.HoldID] == nil {
				holds = append(holds, c.HoldID)
			}
			byHold[c.HoldID] = append(byHold[c.HoldID], seat.ID)
		}
	}
	for _, holdID := range holds {
		if err := tx.ReleaseHeldSeats(holdID, sh.ID, byHold[holdID]); err != nil {
			return err
		}
	}
	return nil
}

// checkUnclaimed refuses, naming each, seats that are sold or held: for
// the show, or for hallWide in any show of the hall to come. A lapsed
// hold does not count (the write expires the show's first).
func (s *Store) checkUnclaimed(tx Tx, sh booking.Show, seats []booking.Seat, hallWide bool) error {
	if hallWide {
		c, found, err := tx.FirstClaimInHall(sh.HallID, seatIDs(seats), tx.Now())
		if err != nil || !found {
			return err
		}
		seat, _ := s.prog.Seat(sh.HallID, c.SeatID)
		return claimedError([]booking.Seat{seat}, c.Sold, " for the show at "+c.Starts.In(tx.Now().Location()).Format("Mon 02 Jan 15:04"))
	}
	if _, err := tx.ExpireStaleHolds(sh.ID); err != nil {
		return err
	}
	live, err := tx.LiveClaimsOf(sh.ID, seatIDs(seats))
	if err != nil {
		return err
	}
	var sold, held []booking.Seat
	for _, seat := range seats {
		if c, ok := live[seat.ID]; ok && c.Sold {
			sold = append(sold, seat)
		} else if ok {
			held = append(held, seat)
		}
	}
	switch {
	case len(sold) > 0:
		return claimedError(sold, true, "")
	case len(held) > 0:
		return claimedError(held, false, "")
	}
	return nil
}

// claimedError is the clerk's message for seats that cannot be kept out
// of sale because they are sold (or held), naming each.
func claimedError(seats []booking.Seat, sold bool, when string) error {
	labels, verb := strings.Join(booking.Labels(seats), ", "), "is"
	if len(seats) > 1 {
		verb = "are"
	}
	if sold {
		return booking.Errorf(booking.EConflict, "%s %s sold%s and cannot be blocked; refund or move the booking first.", labels, verb, when)
	}
	return booking.Errorf(booking.EConflict, "%s %s held at a counter%s and cannot be blocked; try again when that sale is done.", labels, verb, when)
}

// insertBlocks writes the blocks, tells the open maps and writes the one
// audit row.
func insertBlocks(tx Tx, actor booking.Actor, sh booking.Show, seats []booking.Seat, req booking.BlockRequest, reason string) ([]booking.SeatBlock, error) {
	b := NewBlocks{ShowID: sh.ID, HallID: sh.HallID, Seats: seatIDs(seats), Kind: req.Kind, Reason: reason, By: booking.CleanLine(actor.Name, 40), At: tx.Now()}
	if req.HallWide {
		b.ShowID = 0
	}
	out := make([]booking.SeatBlock, 0, len(seats))
	for _, seat := range seats {
		out = append(out, booking.SeatBlock{Seat: seat, Kind: req.Kind, HallWide: req.HallWide, Reason: reason, By: b.By, At: b.At})
	}
	if err := tx.InsertBlocks(b); err != nil {
		return nil, err
	}
	touchBlocks(tx, sh, req.HallWide)
	return out, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditSeatBlock, ShowID: sh.ID, Detail: blockDetail(req, seats, reason)}, 0)
}

// touchBlocks tells every open map the seats changed: the show's, or for
// a hall-wide change every show's (0), since it reaches every show of the
// hall to come.
func touchBlocks(tx Tx, sh booking.Show, hallWide bool) {
	if hallWide {
		tx.Touch(0)
		return
	}
	tx.Touch(sh.ID)
}

// blockDetail is the audit row's detail: the kind, the seats, hall-wide
// or not, and the reason.
func blockDetail(req booking.BlockRequest, seats []booking.Seat, reason string) string {
	d := fmt.Sprintf("%s %s", req.Kind, strings.Join(booking.Labels(seats), " "))
	if req.HallWide {
		d += " (every show of the hall from now on)"
	}
	if reason != "" {
		d += ": " + reason
	}
	return d
}

// UnblockSeats puts seats of a show back on sale, all or nothing: blocked
// seats, or house seats released into sale.
func (s *Store) UnblockSeats(ctx context.Context, actor booking.Actor, req booking.BlockRequest) ([]booking.SeatBlock, error) {
	if err := booking.Authorize(actor, booking.BlockAction(req.Kind, true)); err != nil {
		return nil, err
	}
	sh, hall, seats, err := s.blockTarget(ctx, req)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "unblock seats"}, func(tx Tx) ([]booking.SeatBlock, error) {
		if !req.HallWide {
			if err := s.salesOpen(tx, sh.ID); err != nil {
				return nil, err
			}
		}
		own, hallWide, err := blockRowsOf(tx, sh, seats)
		if err != nil {
			return nil, err
		}
		for _, seat := range seats {
			if err := canLift(seat, req, own, hallWide, hall.Name); err != nil {
				return nil, err
			}
		}
		if err := tx.DeleteBlocks(sh.ID, sh.HallID, seatIDs(seats), req.HallWide); err != nil {
			return nil, err
		}
		out := make([]booking.SeatBlock, 0, len(seats))
		for _, seat := range seats {
			out = append(out, booking.SeatBlock{Seat: seat, Kind: req.Kind, HallWide: req.HallWide, By: booking.CleanLine(actor.Name, 40), At: tx.Now()})
		}
		touchBlocks(tx, sh, req.HallWide)
		return out, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditSeatUnblock, ShowID: sh.ID, Detail: blockDetail(req, seats, booking.CleanLine(req.Reason, booking.MaxBlockReason))}, 0)
	})
}

// canLift says why a seat's block of req.Kind cannot be lifted, if it
// cannot.
func canLift(seat booking.Seat, req booking.BlockRequest, own, hallWide map[int64]BlockRow, hallName string) error {
	r, ok := own[seat.ID]
	if req.HallWide {
		r, ok = hallWide[seat.ID]
	}
	_, wide := hallWide[seat.ID]
	switch {
	case ok && r.By == LayoutBlocker && r.HallWide:
		return booking.Errorf(booking.EInvalid, "%s is blocked in the layout of %s and cannot be unblocked here.", seat.Label, booking.CleanLine(hallName, 40))
	case ok && r.Kind == req.Kind:
		return nil
	case !ok && !req.HallWide && wide:
		return booking.Errorf(booking.EInvalid, "%s is blocked for every show of %s: unblock it for the whole hall.", seat.Label, booking.CleanLine(hallName, 40))
	case req.Kind == booking.BlockHouse:
		return booking.Errorf(booking.EInvalid, "%s is not a house seat of this show.", seat.Label)
	case req.HallWide:
		return booking.Errorf(booking.EInvalid, "%s is not blocked for the whole hall.", seat.Label)
	}
	return booking.Errorf(booking.EInvalid, "%s is not blocked for this show.", seat.Label)
}
