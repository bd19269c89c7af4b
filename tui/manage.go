package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The manager screens (ctrl+g, managers only): a menu of the programme
// and the people — films, halls, the week's shows, prices, staff,
// terminals and shifts. Every change is a store call in a command; the
// store refuses anyone below manager whatever the screens do, and its
// words are drawn on the form or the list that asked, wrapped rather than
// cut at the window's edge. A destructive change asks first, and only y
// says yes.

// mgrSection is which part of the manager screens is on show.
type mgrSection int

const (
	mgrMenu mgrSection = iota
	mgrFilms
	mgrHalls
	mgrWeek
	mgrPrices
	mgrStaff
	mgrTerminals
	mgrShifts
	mgrSettings
	mgrVouchers
	mgrGiftCards
	numMgrSections
)

var mgrNames = [numMgrSections]string{"Manager", "Films", "Halls", "Shows: the week", "Prices", "Staff", "Terminals", "Shifts", "Settings",
	"Vouchers", "Gift cards"}

// mgrAbout is what each section is for, on the menu.
var mgrAbout = [numMgrSections]string{
	mgrFilms:     "add, edit and retire films",
	mgrHalls:     "the halls and their seats; add one from a layout file",
	mgrWeek:      "a week of shows by hall; add, move, cancel",
	mgrPrices:    "the price table; set prices, put a show on a list",
	mgrStaff:     "add, disable/enable, role, PIN reset, unlock",
	mgrTerminals: "the counter terminals; add, remove, their printer",
	mgrShifts:    "everyone's shifts; reopen a closed one",
	mgrSettings:  "the cinema's name, address, currency, locale, footer",
	mgrVouchers:  "the voucher codes, their uses left; add, retire",
	mgrGiftCards: "the gift cards sold, their balances; find one",
}

// manageState is the manager screens: the section on show, what it last
// read, and the form or the question open over it.
type manageState struct {
	section mgrSection
	menu    int // the menu's cursor
	cursor  int // the list's cursor
	busy    bool
	dirty   bool   // a change was heard while busy: read again after
	seq     int    // answers to an older read are dropped
	err     string // why the last read or change failed, in the store's words
	note    string // what the last change did, said above the section

	films  []booking.Film
	halls  []booking.Hall
	prices *booking.PriceTable
	list   int // the price list shown: 0 standing, i the (i-1)th list
	staff  []booking.Staff
	terms  []booking.Terminal
	shifts []booking.Shift
	// settings are the values in force at the counter's site.
	settings []booking.Setting
	week     weekState
	// sites names the sites of a chain for the halls, staff and
	// terminals lists; nil for a single cinema, which sees no site column.
	sites map[int64]string
	money moneyState // vouchers and gift cards (manage_money.go)

	form    *mgrForm
	confirm *mgrConfirm
	// pick is the list of shows a change is for, open over the section
	// (manage_shows.go); cancelled the customers of a show just
	// cancelled (manage_cancel.go).
	pick      *showPicker
	cancelled *cancelledView
}

// mgrLoadedMsg is what a section read.
type mgrLoadedMsg struct {
	seq      int
	films    []booking.Film
	halls    []booking.Hall
	prices   *booking.PriceTable
	staff    []booking.Staff
	terms    []booking.Terminal
	shifts   []booking.Shift
	cinema   *booking.Cinema
	shows    [weekDays][]booking.Show
	sites    []booking.Site
	vouchers []booking.Voucher // vouchers and cards: manage_money.go
	cards    []booking.GiftCardSummary
	err      error
}

// mgrDoneMsg is the answer to a change: info says what was done.
type mgrDoneMsg struct {
	info string
	err  error
}

// openManage shows the manager menu to a manager with no seats in hand.
func (m *Model) openManage() tea.Cmd {
	switch {
	case !m.isManager():
		m.setError("The manager screens need a manager.")
		return nil
	case m.heldCount() > 0:
		m.setError("Sell or release the held seats first.")
		return nil
	}
	seq := m.manage.seq
	m.manage = manageState{seq: seq}
	m.screen = screenManage
	m.setInfo("")
	return nil
}

// openSection opens a section of the menu and reads what it shows.
func (m *Model) openSection(s mgrSection) tea.Cmd {
	g := &m.manage
	g.section, g.cursor, g.err, g.note, g.form, g.confirm, g.pick, g.cancelled, g.money = s, 0, "", "", nil, nil, nil, nil, moneyState{}
	if s == mgrWeek && g.week.start.IsZero() {
		g.week = weekState{start: dayOf(m.now())}
	}
	m.setInfo("")
	return m.mgrLoadCmd()
}

// mgrLoadCmd reads what the section on show draws.
func (m *Model) mgrLoadCmd() tea.Cmd {
	g := &m.manage
	g.seq++
	g.busy, g.dirty = true, false // this read covers every change before it
	seq, section, store, actor, site := g.seq, g.section, m.store, m.actor(), m.opts.Site
	start, query := g.week.start, g.money.cardQuery
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		msg := mgrLoadedMsg{seq: seq}
		var err error
		switch section {
		case mgrFilms:
			msg.films, err = store.Films(ctx, actor)
		case mgrHalls:
			msg.halls, err = store.Halls(ctx, actor)
		case mgrWeek:
			if msg.halls, err = store.Halls(ctx, actor); err == nil {
				msg.films, err = store.Films(ctx, actor)
			}
			if err == nil { // the lists a show may be put on
				msg.prices, err = store.Prices(ctx, actor)
			}
			for d := 0; d < weekDays && err == nil; d++ {
				msg.shows[d], err = store.Shows(ctx, actor, start.AddDate(0, 0, d))
			}
		case mgrPrices:
			msg.prices, err = store.Prices(ctx, actor)
		case mgrStaff:
			msg.staff, err = store.ListStaff(ctx, actor)
		case mgrTerminals:
			msg.terms, err = store.ListTerminals(ctx, actor)
		case mgrShifts:
			msg.shifts, err = store.ListShifts(ctx, actor, booking.ShiftQuery{Limit: mgrShiftsShown})
		case mgrSettings:
			msg.cinema, err = store.Cinema(ctx, actor, site)
		case mgrVouchers: // manage_money.go
			msg.vouchers, err = store.ListVouchers(ctx, actor)
		case mgrGiftCards:
			msg.cards, err = store.ListGiftCards(ctx, actor, booking.GiftCardQuery{Number: query, Limit: mgrCardsShown})
		}
		if err == nil && (section == mgrHalls || section == mgrStaff || section == mgrTerminals) {
			msg.sites, err = store.Sites(ctx, actor)
		}
		msg.err = err
		return msg, err
	})
}

func (m *Model) onMgrLoaded(msg mgrLoadedMsg) tea.Cmd {
	g := &m.manage
	if m.screen != screenManage || msg.seq != g.seq {
		return nil
	}
	g.busy = false
	if msg.err != nil {
		g.err = errorText(msg.err)
		m.logInternal("manage", msg.err)
		return nil
	}
	g.err = ""
	m.onMgrLoadedData(msg)
	if g.dirty {
		return m.mgrLoadCmd() // what changed while this read was under way
	}
	return nil
}

// onMgrLoadedData keeps what a read brought for the section on show.
func (m *Model) onMgrLoadedData(msg mgrLoadedMsg) {
	g := &m.manage
	switch g.section {
	case mgrFilms:
		g.films = msg.films
	case mgrHalls:
		g.halls = msg.halls
	case mgrWeek:
		g.halls, g.films, g.week.shows, g.prices = msg.halls, msg.films, msg.shows, msg.prices
		g.week.clamp(g.halls)
	case mgrPrices:
		g.prices = msg.prices
		g.list = min(g.list, len(g.prices.Lists))
	case mgrStaff:
		g.staff = msg.staff
	case mgrTerminals:
		g.terms = msg.terms
	case mgrShifts:
		g.shifts = msg.shifts
	case mgrSettings:
		g.settings = msg.cinema.Settings()
	case mgrVouchers, mgrGiftCards:
		g.money.vouchers, g.money.cards = msg.vouchers, msg.cards
	}
	g.sites = siteNames(msg.sites)
	g.cursor = min(g.cursor, max(g.rows()-1, 0))
}

// siteNames maps a chain's site ids to their names (0: every site); nil
// for one site.
func siteNames(list []booking.Site) map[int64]string {
	if len(list) < 2 {
		return nil
	}
	names := map[int64]string{booking.AllSites: "all"}
	for _, s := range list {
		names[s.ID] = booking.CleanLine(s.Name, 60) // from outside: cleaned again to be drawn
	}
	return names
}

// siteColumn is a list row's site column, "" for a single cinema.
func (g *manageState) siteColumn(site int64) string {
	if g.sites == nil {
		return ""
	}
	return "  " + fit(g.sites[site], 16)
}

// rows is how many rows the section's list has, for its cursor.
func (g *manageState) rows() int {
	switch g.section {
	case mgrMenu:
		return int(numMgrSections) - 1
	case mgrFilms:
		return len(g.films)
	case mgrHalls:
		return len(g.halls)
	case mgrPrices:
		if g.prices != nil {
			return len(g.prices.Types)
		}
	case mgrStaff:
		return len(g.staff)
	case mgrTerminals:
		return len(g.terms)
	case mgrShifts:
		return len(g.shifts)
	case mgrSettings:
		return len(g.settings)
	case mgrVouchers, mgrGiftCards:
		return g.moneyRows()
	}
	return 0
}

// mgrDo runs a change as a command; its answer closes the form and
// reads the section again, or shows the store's refusal where it was
// asked for.
func (m *Model) mgrDo(info string, fn func(ctx context.Context, store Backend, actor booking.Actor) error) tea.Cmd {
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		err := fn(ctx, store, actor)
		return mgrDoneMsg{info: info, err: err}, err
	})
}

func (m *Model) onMgrDone(msg mgrDoneMsg) tea.Cmd {
	g := &m.manage
	if m.screen != screenManage {
		return nil
	}
	g.busy = false
	if msg.err != nil {
		m.logInternal("manage", msg.err)
		if g.form != nil {
			g.form.err = errorText(msg.err)
		} else {
			g.err = errorText(msg.err)
		}
		return nil
	}
	g.form, g.err, g.note = nil, "", msg.info
	m.setInfo("")
	return m.mgrLoadCmd()
}

// logInternal logs an internal error; the clerk sees the short words.
func (m *Model) logInternal(where string, err error) {
	if booking.ErrorCode(err) == booking.EInternal {
		m.log.Error(where, "err", err)
	}
}

// manageScreen is the manager menu and its sections (see manageState).
type manageScreen struct{}

// keys answers a key; every command it returns is a store call, so the
// screen is busy until its answer.
func (manageScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	cmd := m.manageKey(msg)
	if cmd != nil {
		m.manage.busy = true
	}
	return cmd
}

func (m *Model) manageKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	k := &m.keys
	switch {
	case g.confirm != nil:
		return m.mgrConfirmKey(msg)
	case g.form != nil:
		return m.formKey(msg)
	case g.cancelled != nil:
		return m.cancelledKey(msg)
	case g.pick != nil:
		return m.showPickKey(msg)
	case g.section == mgrMenu:
		return m.menuKey(msg)
	case key.Matches(msg, k.Back):
		g.section, g.err, g.note = mgrMenu, "", ""
		m.setInfo("")
		return nil
	case g.busy:
		return nil
	case g.section == mgrWeek:
		return m.weekKey(msg)
	case key.Matches(msg, k.Up):
		g.cursor = max(g.cursor-1, 0)
		return nil
	case key.Matches(msg, k.Down):
		g.cursor = min(g.cursor+1, max(g.rows()-1, 0))
		return nil
	}
	switch g.section {
	case mgrFilms:
		return m.filmsKey(msg)
	case mgrHalls:
		return m.hallsKey(msg)
	case mgrPrices:
		return m.pricesKey(msg)
	case mgrStaff:
		return m.staffKey(msg)
	case mgrTerminals:
		return m.termsKey(msg)
	case mgrShifts:
		return m.shiftsKey(msg)
	case mgrSettings:
		return m.settingsKey(msg)
	case mgrVouchers:
		return m.vouchersKey(msg)
	case mgrGiftCards:
		return m.giftCardsKey(msg)
	}
	return nil
}

func (m *Model) menuKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	k := &m.keys
	switch {
	case key.Matches(msg, k.Back):
		return m.goBack(screenShows)
	case key.Matches(msg, k.Up):
		g.menu = max(g.menu-1, 0)
	case key.Matches(msg, k.Down):
		g.menu = min(g.menu+1, int(numMgrSections)-2)
	case key.Matches(msg, k.Open):
		return m.openSection(mgrSection(g.menu + 1))
	case digit(msg) >= 1 && digit(msg) < int(numMgrSections):
		g.menu = digit(msg) - 1
		return m.openSection(mgrSection(digit(msg)))
	case msg.String() == "0": // the tenth
		g.menu = int(mgrGiftCards) - 1
		return m.openSection(mgrGiftCards)
	}
	return nil
}

func (manageScreen) focus(m *Model) *field {
	if f := m.manage.form; f != nil && m.manage.confirm == nil {
		if x := &f.fields[f.focus]; x.choices == nil {
			return &x.f
		}
	}
	return nil
}

func (manageScreen) changed(m *Model, c booking.ShowChanged) tea.Cmd {
	g := &m.manage
	cinemaWide := c.ShowID == 0 && (g.section == mgrPrices || g.section == mgrSettings)
	if !(g.section == mgrWeek && (c.ShowID == 0 || g.week.has(c.ShowID))) && !cinemaWide {
		return nil
	}
	if g.form != nil || g.confirm != nil || g.pick != nil || g.busy {
		g.dirty = true // read again once the read under way, or the form, is done
		return nil
	}
	return m.mgrLoadCmd()
}

func (manageScreen) view(m *Model, height int) string {
	g := &m.manage
	st := &m.styles
	var b strings.Builder
	title := st.Title.Render(mgrNames[g.section])
	if g.section != mgrMenu {
		title = st.Subtle.Render("Manager › ") + title
	}
	b.WriteString(cutStyled(title+st.Subtle.Render(" · "+mgrSubtitle(g.section)), m.width) + "\n\n")
	switch {
	case g.confirm != nil:
		b.WriteString(m.confirmView())
		return b.String()
	case g.form != nil:
		b.WriteString(m.formView())
		return b.String()
	case g.cancelled != nil:
		b.WriteString(m.cancelledView(height - 2))
		return b.String()
	case g.pick != nil:
		b.WriteString(m.pickView(height - 2))
		return b.String()
	}
	used := 2
	if said := m.mgrSaid(); said != "" {
		b.WriteString(said + "\n\n")
		used += strings.Count(said, "\n") + 2
	} else if g.busy && g.section != mgrMenu && g.rows() == 0 && g.section != mgrWeek {
		b.WriteString(st.Subtle.Render("  Reading…"))
		return b.String()
	}
	h := max(height-used, 1)
	switch g.section {
	case mgrMenu:
		b.WriteString(m.menuView())
	case mgrFilms:
		b.WriteString(m.filmsView(h))
	case mgrHalls:
		b.WriteString(m.hallsView(h))
	case mgrWeek:
		b.WriteString(m.weekView(h))
	case mgrPrices:
		b.WriteString(m.pricesView(h))
	case mgrStaff:
		b.WriteString(m.staffView(h))
	case mgrTerminals:
		b.WriteString(m.termsView(h))
	case mgrShifts:
		b.WriteString(m.shiftsView(h))
	case mgrSettings:
		b.WriteString(m.settingsView(h))
	case mgrVouchers:
		b.WriteString(m.vouchersView(h))
	case mgrGiftCards:
		b.WriteString(m.giftCardsView(h))
	}
	return b.String()
}

// mgrSaid is the store's refusal, or what the last change did, wrapped
// to the window (at most three lines): "" for neither.
func (m *Model) mgrSaid() string {
	g := &m.manage
	st := &m.styles
	switch {
	case g.err != "":
		return st.Error.Render(indent(wrapText(g.err, m.width-4, 3), 2))
	case g.note != "":
		return st.Info.Render(indent(wrapText(g.note, m.width-4, 3), 2))
	}
	return ""
}

func mgrSubtitle(s mgrSection) string {
	if s == mgrMenu {
		return "the programme and the people; managers only"
	}
	return mgrAbout[s]
}

func (m *Model) menuView() string {
	st := &m.styles
	var b strings.Builder
	for i := 1; i < int(numMgrSections); i++ {
		name := "  " + string(rune('0'+i%10)) + "  " + fit(mgrNames[i], 16)
		about := st.Subtle.Render(mgrAbout[i])
		if i-1 == m.manage.menu {
			name, about = st.Selected.Render(name), mgrAbout[i]
		}
		b.WriteString(name + " " + about + "\n")
	}
	return b.String()
}

// listLines draws rows[first:] of a list under its header, the cursor's
// row highlighted, at most h lines in all.
func (m *Model) listLines(header string, rows []string, h int) string {
	st := &m.styles
	var b strings.Builder
	b.WriteString(st.Label.Render("  "+header) + "\n")
	n := max(h-1, 1)
	cur := m.manage.cursor
	first := max(cur-n+1, 0)
	for i := first; i < len(rows) && i < first+n; i++ {
		line := "  " + rows[i]
		if i == cur {
			line = st.Selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func (manageScreen) help(m *Model) helpKeys {
	g := &m.manage
	k := m.keys
	switch {
	case g.confirm != nil:
		yes, no := says(k.MgrYes, "yes"), relabel(k.No, "n/enter", "no")
		return helpKeys{short: []key.Binding{yes, no}, full: [][]key.Binding{{yes, no}}}
	case g.form != nil:
		return m.formHelp()
	case g.cancelled != nil:
		back := says(k.Back, "back to the week")
		return helpKeys{short: []key.Binding{k.Up, k.Down, back, k.Help}, full: [][]key.Binding{{k.Up, k.Down, back}, k.global()}}
	case g.pick != nil:
		pick, back := says(k.Open, "this show"), says(k.Back, "cancel")
		return helpKeys{short: []key.Binding{pick, k.Up, k.Down, back, k.Help}, full: [][]key.Binding{{pick, k.Up, k.Down, back}, k.global()}}
	case g.section == mgrMenu:
		open := says(k.Open, "open")
		short := []key.Binding{open, k.Up, k.Down, k.Reports, k.Back, k.Help}
		return helpKeys{short: short, full: m.forManagers([][]key.Binding{{open, k.Up, k.Down}, k.global()})}
	}
	own := m.sectionKeys()
	back := says(k.Back, "menu")
	short := append(append([]key.Binding{}, own...), back, k.Help)
	return helpKeys{short: short, full: m.forManagers([][]key.Binding{own, {k.Up, k.Down, back}, k.global()})}
}

// sectionKeys are the keys of the section on show.
func (m *Model) sectionKeys() []key.Binding {
	k := m.keys
	switch m.manage.section {
	case mgrFilms:
		return []key.Binding{k.MgrAdd, k.MgrEdit, k.MgrRetire}
	case mgrHalls:
		return []key.Binding{k.MgrAdd}
	case mgrWeek:
		return []key.Binding{k.MgrAdd, says(k.MgrMove, "move"), says(k.MgrCancelShow, "cancel"), says(k.MgrShowList, "price list"),
			k.MgrSalesClose, says(k.MgrHall, "hall"), says(k.MgrWeek, "week")}
	case mgrPrices:
		return []key.Binding{k.MgrSetPrice, k.MgrTicketType, k.MgrShowList, k.MgrList}
	case mgrStaff:
		return []key.Binding{k.MgrAdd, k.MgrDisable, k.MgrRole, k.MgrPIN, k.MgrUnlock}
	case mgrTerminals:
		return []key.Binding{k.MgrAdd, k.MgrPrinter, k.MgrRemove}
	case mgrShifts:
		return []key.Binding{k.MgrReopen}
	case mgrSettings:
		return []key.Binding{k.MgrEdit}
	case mgrVouchers:
		return []key.Binding{k.MgrAdd, k.MgrRetire}
	case mgrGiftCards:
		return []key.Binding{k.MgrFind}
	}
	return nil
}
