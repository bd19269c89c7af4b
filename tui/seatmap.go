package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	count          int // party size typed before b

	prompt bool // the go-to-seat prompt is open
	input  field

	// waitPrompt is the waiting-list prompt: "name, phone, seats".
	waitPrompt bool
	waitInput  field

	clash *clashState

	holdID  int64
	expires time.Time

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
	if m.actor == nil || m.seats.show.ID == 0 {
		return nil
	}
	m.seats.seq++
	store, actor, showID, owner, seq := m.store, *m.actor, m.seats.show.ID, m.opts.Owner, m.seats.seq
	return m.call(func(ctx context.Context) tea.Msg {
		sm, err := store.SeatMap(ctx, actor, showID, owner)
		return seatMapMsg{showID: showID, sm: sm, err: err, seq: seq}
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
	s.sm = msg.sm
	s.show = msg.sm.Show
	if s.hall == nil || s.hall.ID != msg.sm.Hall.ID {
		s.setHall(msg.sm.Hall, &m.styles)
	}
	mine := s.mine()
	if len(mine) == 0 {
		s.holdID, s.expires = 0, time.Time{}
	} else if id, ok := s.sm.HoldID[mine[0].ID]; ok && id != 0 {
		s.holdID = id
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

func (m *Model) seatMapKey(msg tea.KeyPressMsg) tea.Cmd {
	s := &m.seats
	k := m.keys
	if s.prompt {
		return promptKey(msg, &s.prompt, &s.input, m.goTo)
	}
	if s.waitPrompt {
		return promptKey(msg, &s.waitPrompt, &s.waitInput, m.addWaitlist)
	}
	if s.clash != nil {
		switch {
		case key.Matches(msg, k.TakeOffer):
			return m.takeOffer()
		case key.Matches(msg, k.Dismiss):
			s.clash = nil
			m.setInfo("Choose again.")
			return nil
		}
		// Anything else dismisses the banner and acts as usual.
		s.clash = nil
	}
	if s.sm == nil {
		if key.Matches(msg, k.Back) {
			m.screen = screenShows
			return m.loadShowsCmd()
		}
		return nil
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
	case key.Matches(msg, k.Count):
		s.count = int(msg.String()[0] - '0')
		m.setInfo(fmt.Sprintf("Party of %d — b holds the best %d seats.", s.count, s.count))
		return nil
	case key.Matches(msg, k.Best):
		n := s.count
		if n == 0 {
			n = 2
		}
		s.count = 0
		return m.holdBest(n)
	case key.Matches(msg, k.GoTo):
		s.prompt = true
		s.input.Reset()
		return nil
	case key.Matches(msg, k.Waitlist):
		s.waitPrompt = true
		s.waitInput.Reset()
		return nil
	case key.Matches(msg, k.Clear):
		if mine := s.mine(); len(mine) > 0 {
			return m.release(mine)
		}
	case key.Matches(msg, k.Extend):
		return m.extend()
	case key.Matches(msg, k.Checkout):
		if len(s.mine()) == 0 {
			m.setError("Hold some seats first: space, or a party size then b.")
			return nil
		}
		return m.openCheckout()
	case key.Matches(msg, k.Back):
		if s.count != 0 {
			s.count = 0
			m.setInfo("")
			return nil
		}
		var cmd tea.Cmd
		if mine := s.mine(); len(mine) > 0 {
			cmd = m.release(mine)
		}
		m.screen = screenShows
		return tea.Batch(cmd, m.loadShowsCmd())
	}
	return nil
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
		case booking.SeatBlocked:
			m.setError(seat.Label + " is blocked.")
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
				m.setError(seat.Label + " is held at another counter.")
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
	return m.hold(want, false)
}

// hold asks for seats, added to this session's hold.
func (m *Model) hold(seats []booking.Seat, offer bool) tea.Cmd {
	ids := make([]int64, len(seats))
	for i, seat := range seats {
		ids[i] = seat.ID
	}
	req := booking.HoldRequest{
		ShowID:  m.seats.show.ID,
		SeatIDs: ids,
		Owner:   m.opts.Owner,
		TTL:     booking.DefaultHoldTTL,
		AddTo:   m.seats.holdID,
	}
	store, actor := m.store, *m.actor
	return m.call(func(ctx context.Context) tea.Msg {
		h, err := store.Hold(ctx, actor, req)
		if err != nil && req.AddTo != 0 && !isClash(err) {
			// The hold being added to has ended (expired, or its last
			// seat released): start a new one.
			req.AddTo = 0
			h, err = store.Hold(ctx, actor, req)
		}
		return holdMsg{showID: req.ShowID, hold: h, err: err, offer: offer}
	})
}

func (m *Model) holdBest(n int) tea.Cmd {
	req := booking.HoldBestRequest{
		ShowID: m.seats.show.ID,
		N:      n,
		Owner:  m.opts.Owner,
		TTL:    booking.DefaultHoldTTL,
		AddTo:  m.seats.holdID,
	}
	m.setInfo(fmt.Sprintf("Finding the best %d…", n))
	store, actor := m.store, *m.actor
	return m.call(func(ctx context.Context) tea.Msg {
		h, err := store.HoldBest(ctx, actor, req)
		if err != nil && req.AddTo != 0 && !isClash(err) && booking.ErrorCode(err) != booking.EConflict {
			req.AddTo = 0
			h, err = store.HoldBest(ctx, actor, req)
		}
		return holdMsg{showID: req.ShowID, hold: h, err: err, best: n}
	})
}

func isClash(err error) bool {
	var t *booking.SeatsTakenError
	return errors.As(err, &t)
}

func (m *Model) release(seats []booking.Seat) tea.Cmd {
	labels := make([]string, len(seats))
	for i, seat := range seats {
		labels[i] = seat.Label
	}
	holdID := m.seats.holdID
	if holdID == 0 && m.seats.sm != nil && len(seats) > 0 {
		holdID = m.seats.sm.HoldID[seats[0].ID]
	}
	store, actor, owner, showID := m.store, *m.actor, m.opts.Owner, m.seats.show.ID
	// Show the seats as free at once; the reload that follows confirms it.
	if m.seats.sm != nil {
		for _, seat := range seats {
			delete(m.seats.sm.States, seat.ID)
		}
	}
	return m.call(func(ctx context.Context) tea.Msg {
		err := store.Release(ctx, actor, holdID, owner, labels...)
		return releaseMsg{showID: showID, seats: labels, err: err}
	})
}

func (m *Model) extend() tea.Cmd {
	if m.seats.holdID == 0 {
		return nil
	}
	store, actor, owner, id := m.store, *m.actor, m.opts.Owner, m.seats.holdID
	return m.call(func(ctx context.Context) tea.Msg {
		h, err := store.Extend(ctx, actor, id, owner, booking.DefaultHoldTTL)
		return extendMsg{hold: h, err: err}
	})
}

func (m *Model) onHold(msg holdMsg) tea.Cmd {
	s := &m.seats
	if msg.showID != s.show.ID {
		return nil
	}
	if msg.err != nil {
		var taken *booking.SeatsTakenError
		if errors.As(msg.err, &taken) {
			s.clash = newClash(taken)
			m.setInfo("")
			if offer := s.clash.offerSeats(); len(offer) > 0 {
				s.curRow, s.curCol = offer[0].Row, offer[0].Col
			}
		} else {
			m.fail(msg.err)
		}
		return m.loadSeatMapCmd()
	}
	h := msg.hold
	s.clash = nil
	s.holdID = h.ID
	s.expires = h.ExpiresAt
	if s.sm != nil {
		if s.sm.States == nil {
			s.sm.States = map[int64]booking.SeatState{}
		}
		if s.sm.HoldID == nil {
			s.sm.HoldID = map[int64]int64{}
		}
		for _, seat := range h.Seats {
			s.sm.States[seat.ID] = booking.SeatHeldByMe
			s.sm.HoldID[seat.ID] = h.ID
		}
	}
	n := len(s.mine())
	switch {
	case msg.best > 0 && !h.Together:
		m.setError(fmt.Sprintf("No %d together — held split: %s.", msg.best, strings.Join(seatLabels(h.Seats), ", ")))
	case n > 0:
		m.setInfo(fmt.Sprintf("Holding %d: %s · enter checkout", n, strings.Join(seatLabels(s.mine()), ", ")))
	}
	if msg.best > 0 && len(h.Seats) > 0 {
		s.curRow, s.curCol = h.Seats[0].Row, h.Seats[0].Col
	}
	return tea.Batch(m.loadSeatMapCmd(), m.ensureTick())
}

func (m *Model) onRelease(msg releaseMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(msg.err)
	} else if m.screen == screenSeatMap && msg.showID == m.seats.show.ID {
		m.setInfo("Released " + strings.Join(msg.seats, ", ") + ".")
	}
	if msg.showID == m.seats.show.ID {
		return m.loadSeatMapCmd()
	}
	return nil
}

func (m *Model) onExtend(msg extendMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(msg.err)
		return m.loadSeatMapCmd()
	}
	m.seats.expires = msg.hold.ExpiresAt
	m.setInfo("Hold extended.")
	return m.ensureTick()
}

func newClash(err *booking.SeatsTakenError) *clashState {
	c := &clashState{err: err, offer: map[int64]bool{}}
	for _, seat := range c.offerSeats() {
		c.offer[seat.ID] = true
	}
	return c
}

// takeOffer holds the seats the clash banner offers. If they too were
// just taken, the answer is a new clash with the next offer.
func (m *Model) takeOffer() tea.Cmd {
	offer := m.seats.clash.offerSeats()
	if len(offer) == 0 {
		m.seats.clash = nil
		return nil
	}
	m.setInfo("Taking " + strings.Join(seatLabels(offer), ", ") + "…")
	return m.hold(offer, true)
}

// goTo toggles the seats typed at the / prompt: "G7" or "G7-9".
func (m *Model) goTo(text string) tea.Cmd {
	s := &m.seats
	labels, err := parseSeatRange(text)
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

// parseSeatRange reads "G7", "g7", "G7-9" or "G7-G9" into seat labels.
func parseSeatRange(text string) ([]string, error) {
	t := strings.ToUpper(strings.ReplaceAll(text, " ", ""))
	bad := booking.Errorf(booking.EInvalid, "Type a seat like G7, or a range like G7-9.")
	from, to, isRange := strings.Cut(t, "-")
	row, n1, ok := splitLabel(from)
	if !ok {
		return nil, bad
	}
	if !isRange {
		return []string{row + strconv.Itoa(n1)}, nil
	}
	row2, n2, ok := splitLabel(to)
	if !ok {
		if n, err := strconv.Atoi(to); err == nil {
			row2, n2, ok = row, n, true
		}
	}
	if !ok || row2 != row {
		return nil, bad
	}
	if n2 < n1 {
		n1, n2 = n2, n1
	}
	if n2-n1 >= 20 {
		return nil, booking.Errorf(booking.EInvalid, "At most 20 seats at once.")
	}
	var out []string
	for n := n1; n <= n2; n++ {
		out = append(out, row+strconv.Itoa(n))
	}
	return out, nil
}

// splitLabel splits "G7" into "G" and 7.
func splitLabel(s string) (string, int, bool) {
	i := strings.IndexFunc(s, isDigit)
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return s[:i], n, true
}

// promptKey edits a one-line prompt: enter closes it and submits the
// text, esc closes it, anything else types.
func promptKey(msg tea.KeyPressMsg, open *bool, f *field, submit func(string) tea.Cmd) tea.Cmd {
	switch msg.String() {
	case "enter":
		*open = false
		text := f.String()
		f.Reset()
		return submit(text)
	case "esc":
		*open = false
		f.Reset()
	default:
		f.key(msg)
	}
	return nil
}

func seatLabels(seats []booking.Seat) []string {
	out := make([]string, len(seats))
	for i, s := range seats {
		out[i] = booking.Clean(s.Label)
	}
	return out
}

// mapGeom is where the seat map sits on the screen; View and mouse clicks
// both use it, so a click lands on the seat that was drawn there.
type mapGeom struct {
	top    int // screen line of the first drawn row
	first  int // first hall row drawn
	rows   int // number of hall rows drawn
	left   int // screen column of the map's first cell (left row label)
	cellW  int // 2: glyph and a space; 1: compact
	seatX0 int // screen column of column 0's glyph
	mapW   int // cells from the left label to the right label
	// panel is set when the legend and the seat details fit to the right
	// of the map; panelX is their first column.
	panel  bool
	panelX int
	// below is how many lines under the rows the legend, the details and
	// the banner take.
	below int
}

// panelWidth is the least width of the side panel.
const panelWidth = 20

func (m *Model) mapGeom() mapGeom {
	s := &m.seats
	g := mapGeom{cellW: 2}
	topLines := 1 // title bar
	if m.notice != "" {
		topLines++
	}
	bodyRows := m.height - topLines - 2
	width := len(s.grid[0])
	g.mapW = 2*s.labelW + 2*width + 1
	if g.mapW+2 > m.width {
		g.cellW = 1
		g.mapW = 2*s.labelW + width + 2
	}
	if m.width-g.mapW-4 >= panelWidth {
		g.panel = true
		g.left = max((m.width-g.mapW-panelWidth-4)/2, 1)
		g.panelX = g.left + g.mapW + 4
	} else {
		g.left = max((m.width-g.mapW)/2, 0)
	}
	g.seatX0 = g.left + s.labelW + 1
	banner := 0
	switch {
	case s.clash != nil:
		banner = 2
	case s.prompt, s.waitPrompt:
		banner = 1
	}
	if g.panel {
		g.below = banner
	} else {
		g.below = 1 + strings.Count(m.legend(), "\n") + 1 + max(banner, 1)
	}
	g.rows = min(len(s.grid), max(bodyRows-2-g.below, 1))
	if s.curRow >= g.rows {
		g.first = min(s.curRow-g.rows/2, len(s.grid)-g.rows)
	}
	g.top = topLines + 2 // the show header and the screen come first
	return g
}

// onMapClick toggles the seat under a left click.
func (m *Model) onMapClick(ms tea.Mouse) tea.Cmd {
	s := &m.seats
	if ms.Button != tea.MouseLeft || s.sm == nil || len(s.grid) == 0 || s.prompt || s.waitPrompt {
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

// lookOf picks how a seat is drawn.
func (s *seatMapState) lookOf(seat *booking.Seat) int {
	switch s.sm.States[seat.ID] {
	case booking.SeatHeldByMe:
		return lookMine
	case booking.SeatHeldByOther:
		return lookOther
	case booking.SeatSold:
		return lookSold
	case booking.SeatBlocked:
		return lookBlocked
	}
	if s.clash != nil && s.clash.offer[seat.ID] {
		return lookOffer
	}
	switch seat.Kind {
	case booking.Premium:
		return lookPremium
	case booking.Wheelchair:
		return lookWheelchair
	case booking.Companion:
		return lookCompanion
	}
	return lookFree
}

func (m *Model) viewSeatMap(height int) string {
	st := &m.styles
	s := &m.seats
	var b strings.Builder
	b.Grow(16384)

	// Header: the show, how full it is and the hold countdown.
	sh := s.show
	left := st.Title.Render(cut(sh.Film.Title, m.width-45)) + st.Subtle.Render(" · "+cut(sh.HallName, 12)+" · "+sh.Starts.In(m.now().Location()).Format("Mon 2 Jan 15:04"))
	right := st.Subtle.Render(fmt.Sprintf("free %d/%d", sh.Free(), sh.Capacity))
	if cd := m.countdown(); cd != "" {
		right += "  " + cd
	}
	b.WriteString(spread(left, right, m.width))
	b.WriteString("\n")
	if s.sm == nil || len(s.grid) == 0 || len(s.grid[0]) == 0 {
		b.WriteString("\n" + st.Subtle.Render("  Loading seats…"))
		return b.String()
	}
	g := m.mapGeom()
	width := len(s.grid[0])
	pad := strings.Repeat(" ", g.left)
	var panel []string
	gutter := ""
	if g.panel {
		panel = m.sidePanel(m.width - g.panelX)
		gutter = strings.Repeat(" ", g.panelX-g.left-g.mapW)
	}
	withPanel := func(i int) {
		if i < len(panel) {
			b.WriteString(gutter)
			b.WriteString(panel[i])
		}
		b.WriteByte('\n')
	}

	// The screen.
	inner := (width-1)*g.cellW + 1
	scr := strings.Repeat("▔", max(inner, 6))
	label := " SCREEN "
	if inner > len(label)+4 {
		mid := (inner - len(label)) / 2
		scr = strings.Repeat("▔", mid) + label + strings.Repeat("▔", inner-mid-len(label))
	}
	b.WriteString(pad + strings.Repeat(" ", s.labelW+1) + st.Screen.Render(scr) + strings.Repeat(" ", max(g.mapW-s.labelW-1-max(inner, 6), 0)))
	withPanel(0)

	// The rows.
	cursorOn := s.clash == nil
	for r := g.first; r < g.first+g.rows; r++ {
		row := s.grid[r]
		b.WriteString(pad)
		b.WriteString(s.rowL[r])
		if g.cellW == 2 {
			// Seats that look alike side by side share one styled run.
			open := -1
			closeRun := func() {
				if open >= 0 {
					b.WriteString(st.Seats[open].close)
					open = -1
				}
			}
			for c, i := range row {
				switch {
				case cursorOn && r == s.curRow && c == s.curCol:
					closeRun()
					b.WriteString(st.Cursor.Render("["))
				case cursorOn && r == s.curRow && c == s.curCol+1:
					closeRun()
					b.WriteString(st.Cursor.Render("]"))
				default:
					b.WriteByte(' ')
				}
				if i < 0 {
					b.WriteByte(' ')
					continue
				}
				look := s.lookOf(&s.hall.Seats[i])
				if look != open {
					closeRun()
					b.WriteString(st.Seats[look].open)
					open = look
				}
				b.WriteString(st.Seats[look].Glyph)
			}
			closeRun()
			if cursorOn && r == s.curRow && s.curCol == len(row)-1 {
				b.WriteString(st.Cursor.Render("]"))
			} else {
				b.WriteByte(' ')
			}
		} else {
			b.WriteByte(' ')
			for c, i := range row {
				if i < 0 {
					b.WriteByte(' ')
					continue
				}
				look := &st.Seats[s.lookOf(&s.hall.Seats[i])]
				if cursorOn && r == s.curRow && c == s.curCol {
					b.WriteString(look.cursor)
				} else {
					b.WriteString(look.cell)
				}
			}
			b.WriteByte(' ')
		}
		b.WriteString(s.rowR[r])
		withPanel(r - g.first + 1)
	}
	if !g.panel {
		b.WriteString("\n")
		b.WriteString(m.legend())
		b.WriteString("\n")
	}

	// Banner, prompt or what is under the cursor.
	switch {
	case s.clash != nil:
		b.WriteString(m.clashBanner())
	case s.prompt:
		b.WriteString(st.Label.Render(" Go to seat (G7 or G7-9): ") + s.input.view(st, true, 12))
	case s.waitPrompt:
		b.WriteString(st.Label.Render(" Waiting list — name, phone, seats: ") + s.waitInput.view(st, true, max(m.width-40, 10)))
	case !g.panel:
		b.WriteString(m.cursorLine())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// sidePanel is the legend and the seat details, one string per line,
// drawn to the right of the map.
func (m *Model) sidePanel(width int) []string {
	st := &m.styles
	s := &m.seats
	var out []string
	for _, item := range m.legendItems() {
		out = append(out, st.Seats[item.look].cell+" "+st.Subtle.Render(item.text))
	}
	out = append(out, "")
	if seat, ok := s.current(); ok {
		out = append(out, st.Bold.Render(cut(seat.Label, 6))+" "+seatWord(s.sm.State(seat.ID), seat.Kind))
	}
	if mine := s.mine(); len(mine) > 0 {
		out = append(out, "", st.Seats[lookMine].Style.Render(fmt.Sprintf("holding %d:", len(mine))))
		line := ""
		for _, l := range seatLabels(mine) {
			if ansi.StringWidth(line)+len(l)+1 > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += l
		}
		out = append(out, line, st.Subtle.Render("enter checkout"))
	}
	if s.count > 0 {
		out = append(out, "", st.Bold.Render(fmt.Sprintf("party of %d: b", s.count)))
	}
	for i, l := range out {
		out[i] = cutStyled(l, width)
	}
	return out
}

// countdown is the time left on this session's hold, "hold 4:59".
func (m *Model) countdown() string {
	if m.seats.expires.IsZero() || len(m.seats.mine()) == 0 {
		return ""
	}
	left := m.seats.expires.Sub(m.now())
	if left < 0 {
		left = 0
	}
	secs := int(left.Round(time.Second) / time.Second)
	text := fmt.Sprintf("hold %d:%02d", secs/60, secs%60)
	if left < time.Minute {
		return m.styles.Warn.Render(text + " + extends")
	}
	return m.styles.Countdown.Render(text)
}

// legend explains each glyph the hall can show, wrapped to the width.
func (m *Model) legend() string {
	st := &m.styles
	var lines []string
	line := " "
	for _, item := range m.legendItems() {
		part := st.Seats[item.look].cell + " " + st.Subtle.Render(item.text)
		if ansi.StringWidth(line)+ansi.StringWidth(part)+2 > m.width {
			lines = append(lines, line)
			line = " "
		}
		if line != " " {
			line += "  "
		}
		line += part
	}
	lines = append(lines, line)
	return strings.Join(lines, "\n")
}

// legendItems are the looks this hall can show, in legend order.
func (m *Model) legendItems() []legendItem {
	s := &m.seats
	var out []legendItem
	for _, item := range seatLegend {
		switch item.look {
		case lookOffer:
			if s.clash == nil {
				continue
			}
		case lookPremium, lookWheelchair, lookCompanion, lookBlocked:
			if !s.hallHas[item.look] {
				continue
			}
		}
		out = append(out, item)
	}
	return out
}

// clashBanner is the two-line banner after a clash.
func (m *Model) clashBanner() string {
	st := &m.styles
	c := m.seats.clash
	msg := " " + booking.Clean(c.err.Message())
	hint := " esc choose again"
	if offer := c.offerSeats(); len(offer) == 1 {
		hint = " enter take it · esc choose again"
	} else if len(offer) > 1 {
		hint = " enter take them · esc choose again"
	}
	full := msg + " ·" + hint
	if ansi.StringWidth(full) <= m.width {
		return st.Banner.Render(padRight(full, m.width))
	}
	return st.Banner.Render(padRight(ansi.Truncate(msg, m.width, "…"), m.width)) + "\n" +
		st.Banner.Render(padRight(hint, m.width))
}

// cursorLine describes the seat under the cursor and the seats held.
func (m *Model) cursorLine() string {
	st := &m.styles
	s := &m.seats
	var parts []string
	if seat, ok := s.current(); ok {
		desc := booking.Clean(seat.Label) + " " + seatWord(s.sm.State(seat.ID), seat.Kind)
		parts = append(parts, st.Bold.Render(" "+desc))
	}
	if mine := s.mine(); len(mine) > 0 {
		parts = append(parts, st.Seats[lookMine].Style.Render(fmt.Sprintf("holding %d: %s", len(mine), strings.Join(seatLabels(mine), " "))))
	}
	if s.count > 0 {
		parts = append(parts, st.Bold.Render(fmt.Sprintf("party of %d: b", s.count)))
	}
	return cutStyled(strings.Join(parts, st.Subtle.Render(" · ")), m.width)
}

func seatWord(state booking.SeatState, kind booking.SeatKind) string {
	switch state {
	case booking.SeatHeldByMe:
		return "held here"
	case booking.SeatHeldByOther:
		return "held at another counter"
	case booking.SeatSold:
		return "sold"
	case booking.SeatBlocked:
		return "blocked"
	}
	if kind != booking.Standard {
		return "free (" + kind.String() + ")"
	}
	return "free"
}

// cutStyled truncates a styled line to width cells.
func cutStyled(s string, width int) string {
	if ansi.StringWidth(s) > width {
		return ansi.Truncate(s, width, "…")
	}
	return s
}
