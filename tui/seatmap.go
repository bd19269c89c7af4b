package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// seatMapState is the live map of one show.
type seatMapState struct {
	show booking.Show
	sm   *booking.SeatMap
	hall *booking.Hall
	grid [][]int // [row][col] -> index into hall.Seats, -1 for a gap
	// rowL and rowR are the drawn row labels, padded, left and right.
	rowL, rowR []string
	labelW     int
	hallHas    [numLooks]bool // which seat kinds the hall has, for the legend

	curRow, curCol int
	party          partyState // the party row (seatmap_party.go)
	// bottomH is how many lines the frame drawn last has under its body
	// (render sets it): the map's layout leaves them free.
	bottomH int

	prompt bool // the go-to-seat prompt is open
	input  field

	// waitPrompt is the waiting-list prompt: "name, phone, seats".
	waitPrompt bool
	waitInput  field

	// blockAsk is the reason prompt of blocking seats from the map;
	// blockReq is the block it asks the reason for.
	blockAsk   bool
	blockInput field
	blockReq   booking.BlockRequest

	clash *clashState
	// single is the banner of a hold refused for leaving a single empty
	// seat: enter takes the seats with the single, y holds them anyway.
	single *booking.SingleSeatsError

	holdID  int64
	expires time.Time
	// capped is set once the hold cannot be extended further (its
	// lifetime limit); lapsed lists the seats of a hold that ran out, for
	// the banner and for taking them again.
	capped bool
	lapsed []booking.Seat

	seq     int
	applied int
}

// clashState is the banner after another counter took a seat first.
type clashState struct {
	err   *booking.SeatsTakenError
	offer map[int64]bool // seat IDs of the first suggestion
}

func (c *clashState) offerSeats() []booking.Seat {
	if c == nil || len(c.err.Suggestions) == 0 {
		return nil
	}
	return c.err.Suggestions[0]
}

type seatMapMsg struct {
	showID int64
	sm     *booking.SeatMap
	err    error
	seq    int
}

// holdMsg answers Hold and HoldBest.
type holdMsg struct {
	showID int64
	hold   *booking.Hold
	err    error
	best   int  // N for HoldBest, 0 for Hold
	offer  bool // taking a clash offer
	// checkout opens the checkout once the best seats are held together
	// (enter with a party typed).
	checkout bool
}

type releaseMsg struct {
	showID int64
	seats  []string
	err    error
}

type extendMsg struct {
	hold *booking.Hold
	err  error
}

// openSeatMap shows the map of sh.
func (m *Model) openSeatMap(sh booking.Show) tea.Cmd {
	m.screen = screenSeatMap
	m.seats = seatMapState{show: sh, input: newField(12), waitInput: newField(80), seq: m.seats.seq, applied: m.seats.seq}
	m.setInfo("")
	return m.loadSeatMapCmd()
}

func (m *Model) loadSeatMapCmd() tea.Cmd {
	if m.clerk == nil || m.seats.show.ID == 0 {
		return nil
	}
	m.seats.seq++
	store, actor, showID, owner, seq := m.store, m.actor(), m.seats.show.ID, m.opts.Owner, m.seats.seq
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		sm, err := store.SeatMap(ctx, actor, showID, owner)
		return seatMapMsg{showID: showID, sm: sm, err: err, seq: seq}, err
	})
}

func (m *Model) onSeatMap(msg seatMapMsg) tea.Cmd {
	s := &m.seats
	// A slower, older answer must not paint over a newer one.
	if msg.showID != s.show.ID || msg.seq <= s.applied {
		return nil
	}
	s.applied = msg.seq
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	before := s.mine()
	s.sm = msg.sm
	s.show = msg.sm.Show
	if s.hall == nil || s.hall.ID != msg.sm.Hall.ID {
		s.setHall(msg.sm.Hall, &m.styles)
	}
	mine := s.mine()
	switch {
	case s.show.Cancelled():
		// The show was cancelled and its holds let go: nothing lapsed.
		s.holdID, s.expires, s.lapsed = 0, time.Time{}, nil
	case len(mine) > 0:
		if id, ok := s.sm.HoldID[mine[0].ID]; ok && id != 0 {
			s.holdID = id
		}
	case s.holdID != 0 && !s.expires.IsZero():
		// The counter held seats and the store says none are: the hold
		// ran out (or was let go elsewhere) before the countdown said so.
		return m.lapse(before)
	default:
		s.holdID, s.expires = 0, time.Time{}
	}
	return m.ensureTick()
}

// setHall indexes a hall's seats by position and places the cursor at the
// sweet spot: the middle of the row about two thirds back.
func (s *seatMapState) setHall(h *booking.Hall, st *Styles) {
	s.hall = h
	rows := len(h.Rows)
	for _, seat := range h.Seats {
		rows = max(rows, seat.Row+1)
	}
	width := h.Width
	for _, seat := range h.Seats {
		width = max(width, seat.Col+1)
	}
	s.grid = make([][]int, rows)
	for r := range s.grid {
		s.grid[r] = make([]int, width)
		for c := range s.grid[r] {
			s.grid[r][c] = -1
		}
	}
	s.hallHas = [numLooks]bool{}
	for i, seat := range h.Seats {
		s.grid[seat.Row][seat.Col] = i
		switch {
		case seat.Blocked:
			s.hallHas[lookBlocked] = true
		case seat.Kind == booking.Premium:
			s.hallHas[lookPremium] = true
		case seat.Kind == booking.Wheelchair:
			s.hallHas[lookWheelchair] = true
		case seat.Kind == booking.Companion:
			s.hallHas[lookCompanion] = true
		}
	}
	s.labelW = 1
	names := make([]string, rows)
	for r := range names {
		if r < len(h.Rows) {
			names[r] = cut(h.Rows[r], 3)
		}
		s.labelW = max(s.labelW, ansi.StringWidth(names[r]))
	}
	s.rowL, s.rowR = make([]string, rows), make([]string, rows)
	for r, n := range names {
		pad := strings.Repeat(" ", s.labelW-ansi.StringWidth(n))
		s.rowL[r] = st.RowLabel.Render(pad + n)
		s.rowR[r] = st.RowLabel.Render(n + pad)
	}
	s.curRow, s.curCol = rows*2/3, width/2
	s.snap()
}

// snap moves the cursor onto the nearest seat.
func (s *seatMapState) snap() {
	if len(s.grid) == 0 {
		return
	}
	best, bestD := -1, 1<<30
	for r := range s.grid {
		for c, i := range s.grid[r] {
			if i < 0 {
				continue
			}
			d := abs(r-s.curRow)*4 + abs(c-s.curCol)
			if d < bestD {
				best, bestD = i, d
			}
		}
	}
	if best >= 0 {
		seat := s.hall.Seats[best]
		s.curRow, s.curCol = seat.Row, seat.Col
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// current returns the seat under the cursor.
func (s *seatMapState) current() (booking.Seat, bool) {
	if s.hall == nil || s.curRow >= len(s.grid) || s.curCol >= len(s.grid[s.curRow]) {
		return booking.Seat{}, false
	}
	i := s.grid[s.curRow][s.curCol]
	if i < 0 {
		return booking.Seat{}, false
	}
	return s.hall.Seats[i], true
}

// move steps the cursor to the next seat in a direction, over gaps.
func (s *seatMapState) move(dr, dc int) {
	if s.hall == nil {
		return
	}
	if dc != 0 {
		row := s.grid[s.curRow]
		for c := s.curCol + dc; c >= 0 && c < len(row); c += dc {
			if row[c] >= 0 {
				s.curCol = c
				return
			}
		}
		return
	}
	for r := s.curRow + dr; r >= 0 && r < len(s.grid); r += dr {
		best, bestD := -1, 1<<30
		for c, i := range s.grid[r] {
			if i >= 0 && abs(c-s.curCol) < bestD {
				best, bestD = c, abs(c-s.curCol)
			}
		}
		if best >= 0 {
			s.curRow, s.curCol = r, best
			return
		}
	}
}

// mine returns the seats held by this session, in hall order.
func (s *seatMapState) mine() []booking.Seat {
	if s.sm == nil || s.hall == nil {
		return nil
	}
	var out []booking.Seat
	for _, seat := range s.hall.Seats {
		if s.sm.States[seat.ID] == booking.SeatHeldByMe {
			out = append(out, seat)
		}
	}
	return out
}

// seatMapScreen is the live map of one show: hold seats, then checkout.
type seatMapScreen struct{}

func (seatMapScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	s := &m.seats
	k := m.keys
	if s.prompt {
		return m.promptKey(msg, &s.prompt, &s.input, m.goTo)
	}
	if s.waitPrompt {
		return m.promptKey(msg, &s.waitPrompt, &s.waitInput, m.addWaitlist)
	}
	if cmd, done := m.blockKey(msg); done {
		return cmd
	}
	if cmd, done := m.clashKey(msg); done {
		return cmd
	}
	if cmd, done := m.singleKey(msg); done {
		return cmd
	}
	if s.sm == nil {
		if key.Matches(msg, k.Back) {
			m.screen = screenShows
			return m.loadShowsCmd()
		}
		return nil
	}
	if cmd, done := m.partyKey(msg); done {
		return cmd
	}
	switch {
	case key.Matches(msg, k.SeatUp):
		s.move(-1, 0)
	case key.Matches(msg, k.SeatDown):
		s.move(1, 0)
	case key.Matches(msg, k.SeatLeft):
		s.move(0, -1)
	case key.Matches(msg, k.SeatRight):
		s.move(0, 1)
	case key.Matches(msg, k.Toggle):
		if seat, ok := s.current(); ok {
			return m.toggle([]booking.Seat{seat})
		}
	case key.Matches(msg, k.Best), key.Matches(msg, k.BestPremium):
		return m.bestForParty(key.Matches(msg, k.BestPremium), false)
	case key.Matches(msg, k.GoTo):
		s.prompt = true
		s.input.Reset()
		return nil
	case key.Matches(msg, k.Waitlist):
		s.waitPrompt = true
		s.waitInput.Reset()
		return nil
	case key.Matches(msg, k.WaitList):
		return m.openWaitlist()
	case key.Matches(msg, k.Clear):
		if len(s.mine()) > 0 {
			return m.leave(leaveClear)
		}
	case key.Matches(msg, k.Extend):
		return m.extend()
	case key.Matches(msg, k.Checkout):
		return m.mapEnter()
	case key.Matches(msg, k.Back):
		if !s.party.empty() {
			m.clearParty()
			m.setInfo("Party cleared.")
			return nil
		}
		return m.leave(leaveShows)
	}
	return nil
}

func (seatMapScreen) focus(m *Model) *field {
	switch {
	case m.seats.prompt:
		return &m.seats.input
	case m.seats.waitPrompt:
		return &m.seats.waitInput
	case m.seats.blockAsk:
		return &m.seats.blockInput
	}
	return nil
}

// back keeps find and the door opened from the map coming back to it.
func (seatMapScreen) back(*Model) screen { return screenSeatMap }

func (seatMapScreen) help(m *Model) helpKeys {
	k := m.keys
	s := &m.seats
	switch {
	case s.clash != nil:
		return helpKeys{
			short: []key.Binding{k.TakeOffer, k.Dismiss, k.Help},
			full:  [][]key.Binding{{k.TakeOffer, k.Dismiss}, k.global()},
		}
	case s.single != nil:
		take := says(k.TakeOffer, "hold "+joinLabels(s.single.Fill()))
		return helpKeys{
			short: []key.Binding{take, k.AllowSingle, k.Dismiss, k.Help},
			full:  [][]key.Binding{{take, k.AllowSingle, k.Dismiss}, k.global()},
		}
	case s.waitPrompt:
		return helpKeys{short: []key.Binding{says(k.Submit, "add to the waiting list"), says(k.Back, "cancel")}}
	case s.prompt:
		return helpKeys{short: []key.Binding{says(k.Submit, "toggle seats"), says(k.Back, "cancel")}}
	case s.blockAsk:
		return helpKeys{short: []key.Binding{says(k.Submit, "keep them out of sale"), says(k.Back, "cancel")}}
	}
	enter := k.Checkout
	switch {
	case s.showLapsed():
		enter = says(k.Checkout, "hold them again")
	case m.exch != nil:
		enter = says(k.Checkout, "exchange for these")
	}
	// The overlay lists each ticket type's letter as a key of the party.
	party := []key.Binding{k.PartyType}
	letters := typeLetters(m.types)
	for _, t := range m.types {
		if r := letterOf(letters, t.Code); r != 0 {
			party = append(party, relabel(k.PartyType, string(r), booking.Clean(t.Name)))
		}
	}
	party = append(party, k.Count, k.Wheelchair, k.Best, k.BestPremium, says(k.Checkout, "best seats + checkout"))
	var short []key.Binding
	switch n := s.party.size(); {
	case len(s.mine()) > 0 || s.showLapsed() || m.exch != nil:
		short = []key.Binding{enter, k.Toggle, k.GoTo, k.Clear, k.Extend, k.Help}
	case !s.party.empty():
		short = []key.Binding{says(k.Checkout, fmt.Sprintf("best %d + checkout", n)), says(k.Best, fmt.Sprintf("best %d here", n))}
		if s.party.typed() {
			short = append(short, says(k.Wheelchair, "a wheelchair user"))
		}
		short = append(short, says(k.DeleteChar, "undo"), says(k.Back, "clear"), k.Help)
	default:
		short = []key.Binding{says(k.PartyType, "2 adult 1 child"), k.BestN, k.Toggle, says(k.GoTo, "go to G7"), k.Help}
	}
	return helpKeys{
		short: short,
		full: m.withBlockKeys([][]key.Binding{
			{k.SeatUp, k.SeatDown, k.SeatLeft, k.SeatRight},
			party,
			{k.Toggle, k.GoTo, k.Clear, k.Extend, k.Waitlist, k.WaitList, enter},
			k.global(),
		}),
	}
}

// click toggles the seat under a left click.
func (seatMapScreen) click(m *Model, ms tea.Mouse) tea.Cmd {
	s := &m.seats
	if ms.Button != tea.MouseLeft || s.sm == nil || len(s.grid) == 0 || s.prompt || s.waitPrompt || s.blockAsk {
		return nil
	}
	g := m.mapGeom()
	r := ms.Y - g.top
	if r < 0 || r >= g.rows || ms.X < g.seatX0 {
		return nil
	}
	r += g.first
	c := (ms.X - g.seatX0) / g.cellW
	if c >= len(s.grid[r]) || s.grid[r][c] < 0 {
		return nil
	}
	s.clash = nil
	s.curRow, s.curCol = r, c
	seat, _ := s.current()
	return m.toggle([]booking.Seat{seat})
}

// clashKey answers the clash banner: enter takes the offer, esc chooses
// again, and anything else dismisses it and acts as usual (done false).
func (m *Model) clashKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	s := &m.seats
	if s.clash == nil {
		return nil, false
	}
	switch {
	case key.Matches(msg, m.keys.TakeOffer):
		return m.takeOffer(), true
	case key.Matches(msg, m.keys.Dismiss):
		s.clash = nil
		m.setInfo("Choose again.")
		return nil, true
	}
	s.clash = nil
	return nil, false
}

// mapEnter opens the checkout of the seats held; with none held and a
// party typed, holds the best seats for it and opens the checkout when
// they sit together; right after a hold ran out, takes the same seats
// again (a clash banner if any went).
func (m *Model) mapEnter() tea.Cmd {
	s := &m.seats
	switch {
	case m.exch != nil && len(s.mine()) > 0:
		return m.exchangeEnter()
	case len(s.mine()) > 0:
		return m.openCheckout()
	case len(s.lapsed) > 0:
		lapsed := s.lapsed
		m.setInfo("Holding " + joinLabels(lapsed) + " again…")
		return m.hold(lapsed, false, false)
	case s.party.size() > 0 && m.exch == nil:
		return m.bestForParty(false, true)
	}
	m.setError("Hold some seats first: space, or type the party (" + m.keys.PartyType.Help().Key + ") then enter.")
	return nil
}

// bestForParty holds the best seats for the party typed (2 when none
// is), with its wheelchair places; checkout opens the checkout once they
// are held together.
func (m *Model) bestForParty(premium, checkout bool) tea.Cmd {
	s := &m.seats
	n := s.party.size()
	if n == 0 {
		n = 2
	}
	if s.freeCount() == 0 {
		m.setError("Sold out — w adds the customer to the waiting list.")
		return nil
	}
	s.party.num = 0
	return m.holdBest(n, premium, s.party.wheel(), checkout)
}

// freeCount is how many seats of the map are free to hold.
func (s *seatMapState) freeCount() int {
	n := 0
	for _, seat := range s.hall.Seats {
		if s.sm.State(seat.ID) == booking.SeatFree {
			n++
		}
	}
	return n
}

// toggle releases the given seats when they are all this session's, and
// holds the rest otherwise.
func (m *Model) toggle(seats []booking.Seat) tea.Cmd {
	s := &m.seats
	allMine := true
	var want []booking.Seat
	for _, seat := range seats {
		switch s.sm.State(seat.ID) {
		case booking.SeatHeldByMe:
		case booking.SeatBlocked, booking.SeatHouse:
			m.setError(outOfSaleText(seat, s.sm.State(seat.ID)))
			return nil
		case booking.SeatSold:
			if len(seats) == 1 {
				m.setError(seat.Label + " is sold.")
				return nil
			}
			allMine = false
			want = append(want, seat)
		case booking.SeatHeldByOther:
			if len(seats) == 1 {
				m.setError(booking.Clean(seat.Label) + " is " + m.seatSays(seat) + ".")
				return nil
			}
			allMine = false
			want = append(want, seat)
		default:
			allMine = false
			want = append(want, seat)
		}
	}
	if allMine {
		return m.release(seats)
	}
	return m.hold(want, false, false)
}

// goTo toggles the seats typed at the / prompt: "G7" or "G7-9".
func (m *Model) goTo(text string) tea.Cmd {
	s := &m.seats
	labels, err := booking.ParseSeatRange(text)
	if err != nil {
		m.setError(booking.ErrorMessage(err))
		return nil
	}
	seats := make([]booking.Seat, 0, len(labels))
	for _, l := range labels {
		seat, ok := s.hall.SeatByLabel(l)
		if !ok {
			m.setError("There is no seat " + l + " in " + booking.Clean(s.hall.Name) + ".")
			return nil
		}
		seats = append(seats, seat)
	}
	s.curRow, s.curCol = seats[0].Row, seats[0].Col
	return m.toggle(seats)
}
