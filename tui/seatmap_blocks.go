package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Blocked and house seats from the seat map (issue 11): a manager blocks
// and unblocks the seat under the cursor, or the seats held here, for
// this show or every show of the hall, and holds house seats back; a
// supervisor releases house seats into sale. Every change goes through
// the store and reaches every open map through the change broker, like a
// sale.

// withBlockKeys is k with the seat map's block keys (DefaultKeyMap's
// part for them, kept here so that function stays short).
func withBlockKeys(k KeyMap) KeyMap {
	b, keys, h := key.NewBinding, key.WithKeys, key.WithHelp
	k.BlockSeat = b(keys("B"), h("B", "block/unblock seats"))
	k.BlockHall = b(keys("A"), h("A", "block/unblock, whole hall"))
	k.HouseSeat = b(keys("H"), h("H", "hold back house seats"))
	k.ReleaseHouse = b(keys("R"), h("R", "release house seats"))
	return k
}

// blockMsg answers BlockSeats and UnblockSeats.
type blockMsg struct {
	showID int64
	done   string // what was done, for the status line: "Blocked"…
	blocks []booking.SeatBlock
	err    error
}

// blockTargets are the seats a block key acts on: the seats held here
// (the selection), else the seat under the cursor.
func (s *seatMapState) blockTargets() []booking.Seat {
	if mine := s.mine(); len(mine) > 0 {
		return mine
	}
	if seat, ok := s.current(); ok {
		return []booking.Seat{seat}
	}
	return nil
}

// blockedAs reports whether every seat is kept out of sale as kind, for
// the whole hall or for this show alone as hallWide says.
func (s *seatMapState) blockedAs(seats []booking.Seat, kind booking.BlockKind, hallWide bool) bool {
	for _, seat := range seats {
		b, ok := s.sm.Blocks[seat.ID]
		if !ok || b.Kind != kind || b.HallWide != hallWide {
			return false
		}
	}
	return len(seats) > 0
}

// anyAs reports whether some seat is kept out of sale as kind for this
// show alone.
func (s *seatMapState) anyAs(seats []booking.Seat, kind booking.BlockKind) bool {
	for _, seat := range seats {
		if b, ok := s.sm.Blocks[seat.ID]; ok && b.Kind == kind && !b.HallWide {
			return true
		}
	}
	return false
}

// outOfSaleText is what the map says when a blocked or house seat is
// chosen.
func outOfSaleText(seat booking.Seat, st booking.SeatState) string {
	if st == booking.SeatHouse {
		return seat.Label + " is a house seat: not for sale until a supervisor releases it."
	}
	return seat.Label + " is blocked: not for sale."
}

// blockKey answers the reason prompt while it is open, and the block
// keys on the map (done false for any other key, and while the map is
// loading or a clash banner waits for its answer): B and A block the
// seats, or unblock them when they are all blocked that way already; H
// asks to hold them back as house seats, R releases house seats.
// Blocking asks for a reason first.
func (m *Model) blockKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k, s := m.keys, &m.seats
	if s.blockAsk {
		return m.promptKey(msg, &s.blockAsk, &s.blockInput, m.submitBlock), true
	}
	if s.sm == nil || s.clash != nil {
		return nil, false
	}
	req := booking.BlockRequest{ShowID: s.show.ID, Kind: booking.BlockBlocked, Owner: m.opts.Owner}
	release := false
	switch {
	case key.Matches(msg, k.BlockSeat):
	case key.Matches(msg, k.BlockHall):
		req.HallWide = true
	case key.Matches(msg, k.HouseSeat):
		req.Kind = booking.BlockHouse
	case key.Matches(msg, k.ReleaseHouse):
		req.Kind, release = booking.BlockHouse, true
	default:
		return nil, false
	}
	seats := s.blockTargets()
	if len(seats) == 0 {
		return nil, true
	}
	req.Seats = seatLabels(seats)
	switch {
	case req.Kind == booking.BlockBlocked && s.blockedAs(seats, booking.BlockBlocked, req.HallWide):
		release = true
	case req.Kind == booking.BlockBlocked && !req.HallWide && s.blockedAs(seats, booking.BlockBlocked, true):
		m.setError(joinLabels(seats) + isAre(len(seats)) + " blocked for every show of the hall: A unblocks it.")
		return nil, true
	case req.Kind == booking.BlockHouse && !release && s.blockedAs(seats, booking.BlockHouse, false):
		m.setError(joinLabels(seats) + isAre(len(seats)) + " house seats already: R releases them.")
		return nil, true
	case req.Kind == booking.BlockBlocked && !req.HallWide && s.anyAs(seats, booking.BlockHouse):
		m.setError("A house seat is not blocked: R releases it first.")
		return nil, true
	}
	if err := booking.Authorize(m.actor(), booking.BlockAction(req.Kind, release)); err != nil {
		m.fail(err)
		return nil, true
	}
	if release {
		return m.blockCmd(req, true), true
	}
	s.blockReq, s.blockAsk, s.blockInput = req, true, newField(booking.MaxBlockReason)
	return nil, true
}

// isAre is the verb after n seats' labels.
func isAre(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

// submitBlock sends the block the reason prompt was asking about.
func (m *Model) submitBlock(reason string) tea.Cmd {
	req := m.seats.blockReq
	req.Reason = reason
	return m.blockCmd(req, false)
}

// blockCmd blocks or unblocks; seats held here that it blocks stop being
// this counter's at once, so their hold ending is no lapse.
func (m *Model) blockCmd(req booking.BlockRequest, release bool) tea.Cmd {
	s := &m.seats
	if !release && len(s.mine()) > 0 {
		s.holdID, s.expires, s.capped = 0, time.Time{}, false
	}
	done := blockDone(req, release)
	m.setInfo(done + " " + strings.Join(req.Seats, " ") + "…")
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		var blocks []booking.SeatBlock
		var err error
		if release {
			blocks, err = store.UnblockSeats(ctx, actor, req)
		} else {
			blocks, err = store.BlockSeats(ctx, actor, req)
		}
		return blockMsg{showID: req.ShowID, done: done, blocks: blocks, err: err}, err
	})
}

// blockDone says what a block request does, for the status line.
func blockDone(req booking.BlockRequest, release bool) string {
	switch {
	case req.Kind == booking.BlockHouse && release:
		return "Released into sale:"
	case req.Kind == booking.BlockHouse:
		return "House seats:"
	case release && req.HallWide:
		return "Unblocked for every show of the hall:"
	case release:
		return "Unblocked:"
	case req.HallWide:
		return "Blocked for every show of the hall:"
	}
	return "Blocked:"
}

// onBlock says what was done and repaints the map.
func (m *Model) onBlock(msg blockMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(msg.err)
	} else if m.screen == screenSeatMap && msg.showID == m.seats.show.ID {
		m.setInfo(msg.done + " " + strings.Join(seatLabels(blockSeats(msg.blocks)), " ") + ".")
	}
	if msg.showID == m.seats.show.ID {
		return m.loadSeatMapCmd()
	}
	return nil
}

func blockSeats(blocks []booking.SeatBlock) []booking.Seat {
	out := make([]booking.Seat, len(blocks))
	for i, b := range blocks {
		out[i] = b.Seat
	}
	return out
}

// blockPromptView is the reason prompt under the map.
func (m *Model) blockPromptView() string {
	st, s := &m.styles, &m.seats
	what := "Block " + strings.Join(s.blockReq.Seats, " ")
	switch {
	case s.blockReq.Kind == booking.BlockHouse:
		what = "Hold back " + strings.Join(s.blockReq.Seats, " ") + " as house seats"
	case s.blockReq.HallWide:
		what += " for every show of the hall"
	}
	label := " " + cut(what, max(m.width/2, 20)) + " — reason: "
	return st.Label.Render(label) + s.blockInput.view(st, true, max(m.width-len([]rune(label))-2, 10))
}

// blockKeys are the ? overlay's block keys for who may use them: a
// manager all four, a supervisor the release of house seats.
func (m *Model) blockKeys() []key.Binding {
	k := m.keys
	switch a := m.actor(); {
	case m.clerk != nil && booking.Authorize(a, booking.ActionBlockSeats) == nil:
		return []key.Binding{k.BlockSeat, k.BlockHall, k.HouseSeat, k.ReleaseHouse}
	case m.clerk != nil && booking.Authorize(a, booking.ActionReleaseHouse) == nil:
		return []key.Binding{k.ReleaseHouse}
	}
	return nil
}

// withBlockKeys adds the block keys the signed-in person may use to the
// seat map's ? overlay, as a column before the last (the global keys).
func (m *Model) withBlockKeys(full [][]key.Binding) [][]key.Binding {
	keys := m.blockKeys()
	if len(keys) == 0 {
		return full
	}
	last := len(full) - 1
	return append(append(full[:last:last], keys), full[last])
}

// blockNote is why the seat is kept out of sale, ": broken arm", or "".
func (s *seatMapState) blockNote(seat booking.Seat) string {
	if s.sm == nil {
		return ""
	}
	b, ok := s.sm.Blocks[seat.ID]
	if !ok || b.Reason == "" || s.sm.State(seat.ID) == booking.SeatSold {
		return ""
	}
	return ": " + booking.CleanLine(b.Reason, booking.MaxBlockReason) // the map wraps it
}

// mapHas reports whether some seat of the map is drawn with look, for the
// legend of what is kept out of sale now.
func (s *seatMapState) mapHas(look int) bool {
	if s.sm == nil {
		return false
	}
	want := map[int]booking.SeatState{lookBlocked: booking.SeatBlocked, lookHouse: booking.SeatHouse}
	st, ok := want[look]
	if !ok {
		return false
	}
	for _, got := range s.sm.States {
		if got == st {
			return true
		}
	}
	return false
}
