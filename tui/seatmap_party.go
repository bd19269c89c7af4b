package tui

import (
	"fmt"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The party row: a mixed party is typed on the seat map before any seat
// is picked, as a count and a ticket type's letter for each type — "2a2c"
// is two adults and two children — and w makes one of them a wheelchair
// user. enter then holds the best seats for the whole party and opens the
// checkout with the types on the seats; b holds them and stays on the map.
// Seats picked by hand take the party's types too. A bare count ("4b") is
// a party of that many of the first type, as before.

// partyState is the party typed on the seat map.
type partyState struct {
	// entries are the counts typed, in order: a ticket type code, or ""
	// for wheelchair places.
	entries []partyEntry
	// num is the count being typed, not yet given a letter.
	num int
}

// partyEntry is one count of the party row.
type partyEntry struct {
	code string // ticket type code; "" for wheelchair places
	n    int
}

// tickets is how many tickets the party has by type.
func (p *partyState) tickets() int {
	n := 0
	for _, e := range p.entries {
		if e.code != "" {
			n += e.n
		}
	}
	return n
}

// wheel is how many of the party need a wheelchair place.
func (p *partyState) wheel() int {
	n := 0
	for _, e := range p.entries {
		if e.code == "" {
			n += e.n
		}
	}
	return n
}

// size is how many seats the party needs: its tickets, or the count typed
// alone; 0 when nothing is typed.
func (p *partyState) size() int {
	if n := p.tickets(); n > 0 {
		return n
	}
	return p.num
}

// typed reports whether any type was given a count: then w asks for a
// wheelchair place rather than the waiting list.
func (p *partyState) typed() bool { return p.tickets() > 0 }

// empty reports whether nothing is typed.
func (p *partyState) empty() bool { return len(p.entries) == 0 && p.num == 0 }

// codes lists the party's ticket types one per seat, in the order typed:
// what the checkout puts on the seats held, in hall order.
func (p *partyState) codes() []string {
	var out []string
	for _, e := range p.entries {
		for i := 0; i < e.n && e.code != ""; i++ {
			out = append(out, e.code)
		}
	}
	return out
}

// partyReserved are the seat map's own letter keys, which no ticket type
// may take.
const partyReserved = "bhjklpwxy"

// typeLetters gives each ticket type a letter of its name: the first
// letter not already taken and not one of the map's own keys ("Adult" a,
// "Child" c, "Senior" s, "Student" t). A type whose name leaves none has
// no letter and is set at the checkout.
func typeLetters(types []booking.TicketType) map[rune]string {
	out := map[rune]string{}
	for _, t := range types {
		for _, r := range strings.ToLower(booking.Clean(t.Name) + t.Code) {
			if r < 'a' || r > 'z' || strings.ContainsRune(partyReserved, r) {
				continue
			}
			if _, taken := out[r]; !taken {
				out[r] = t.Code
				break
			}
		}
	}
	return out
}

// letterOf is the letter of ticket type code, 0 when it has none.
func letterOf(letters map[rune]string, code string) rune {
	for r, c := range letters {
		if c == code {
			return r
		}
	}
	return 0
}

// lettersHint lists the letters: "a Adult · c Child · s Senior · t Student".
func (m *Model) lettersHint() string {
	letters := typeLetters(m.types)
	var parts []string
	for _, t := range m.types {
		if r := letterOf(letters, t.Code); r != 0 {
			parts = append(parts, string(r)+" "+booking.Clean(t.Name))
		}
	}
	return strings.Join(parts, " · ")
}

// partyText is the party in words: "2 Adult · 2 Child · 1 wheelchair".
func (m *Model) partyText() string {
	p := &m.seats.party
	var parts []string
	counts := map[string]int{}
	for _, e := range p.entries {
		counts[e.code] += e.n
	}
	for _, t := range m.types {
		if n := counts[t.Code]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, booking.Clean(t.Name)))
		}
	}
	if w := p.wheel(); w > 0 {
		parts = append(parts, plural(w, "wheelchair", "wheelchairs"))
	}
	if len(parts) == 0 && p.num > 0 {
		parts = append(parts, fmt.Sprintf("%d", p.num))
	}
	return strings.Join(parts, " · ")
}

// partyKey takes a key of the party row: a digit, a type's letter, w
// after a type, backspace. done is false for a key the row does not take.
func (m *Model) partyKey(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	p := &m.seats.party
	k := m.keys
	switch {
	case key.Matches(msg, k.Count):
		n := p.num*10 + digit(msg)
		if n > booking.MaxSeatsPerSale {
			n = digit(msg) // a slip: start the count again
		}
		p.num = n
		if p.num == 0 {
			return nil, true
		}
		m.setInfo(fmt.Sprintf("%d of which type? %s — or b for the best %d.", p.num, m.lettersHint(), p.num))
		return nil, true
	case key.Matches(msg, k.Wheelchair) && p.typed():
		n := max(p.num, 1)
		if p.wheel()+n > p.tickets() {
			m.setError(fmt.Sprintf("The party is %s: type them first, then w for each wheelchair user.", plural(p.tickets(), "person", "people")))
			p.num = 0
			return nil, true
		}
		p.entries = append(p.entries, partyEntry{n: n})
		p.num = 0
		m.partySaid()
		return nil, true
	case key.Matches(msg, k.DeleteChar) && !p.empty():
		switch {
		case p.num > 0:
			p.num /= 10
		default:
			p.entries = p.entries[:len(p.entries)-1]
		}
		m.partySaid()
		return nil, true
	}
	if r := []rune(msg.Text); len(r) == 1 && msg.Mod == 0 && unicode.IsLower(r[0]) {
		code, ok := typeLetters(m.types)[r[0]]
		if !ok {
			return nil, false
		}
		n := max(p.num, 1)
		if p.tickets()+n > booking.MaxSeatsPerSale {
			m.setError(fmt.Sprintf("A sale is at most %d seats.", booking.MaxSeatsPerSale))
			p.num = 0
			return nil, true
		}
		p.entries = append(p.entries, partyEntry{code: code, n: n})
		p.num = 0
		m.partySaid()
		return nil, true
	}
	return nil, false
}

// partySaid tells the clerk the party as it stands and what enter does.
func (m *Model) partySaid() {
	p := &m.seats.party
	if p.empty() {
		m.setInfo("")
		return
	}
	n := p.size()
	if len(m.seats.mine()) > 0 {
		m.setInfo(fmt.Sprintf("Party: %s — the checkout puts these types on the seats held.", m.partyText()))
		return
	}
	m.setInfo(fmt.Sprintf("Party: %s — enter holds the best %d and opens the checkout; b holds them here.", m.partyText(), n))
}

// clearParty forgets the party row.
func (m *Model) clearParty() {
	m.seats.party = partyState{}
}

// partyTypes puts the party's ticket types on seats, in hall order, as
// far as the party goes; the rest keep def.
func (m *Model) partyTypes(seats []booking.Seat, def string) map[string]string {
	codes := m.seats.party.codes()
	out := make(map[string]string, len(seats))
	for i, s := range seats {
		out[s.Label] = def
		if i < len(codes) {
			if _, ok := m.typeByCode(codes[i]); ok {
				out[s.Label] = codes[i]
			}
		}
	}
	return out
}
