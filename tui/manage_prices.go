package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The manager's price table: ticket types down, seat kinds across, one
// price list at a time (tab changes it); a price set on the list or the
// seat kind is marked *, the rest are the ticket type's own price.

var seatKinds = []booking.SeatKind{booking.Standard, booking.Premium, booking.Wheelchair, booking.Companion}

// listName is the price list shown: "" for the standing list.
func (g *manageState) listName() string {
	if g.prices == nil || g.list == 0 || g.list > len(g.prices.Lists) {
		return ""
	}
	return g.prices.Lists[g.list-1].Name
}

func (m *Model) pricesView(h int) string {
	g := &m.manage
	st := &m.styles
	t := g.prices
	if t == nil {
		return ""
	}
	var b strings.Builder
	names := []string{"standing"}
	for _, l := range t.Lists {
		names = append(names, cut(l.Name, booking.MaxListName))
	}
	for i, n := range names {
		if i == g.list {
			n = st.Selected.Render(" " + n + " ")
		} else {
			n = st.Subtle.Render(" " + n + " ")
		}
		if i == 0 {
			b.WriteString("  " + st.Label.Render("List "))
		}
		b.WriteString(n)
	}
	b.WriteString("\n\n")
	list := g.listName()
	rows := make([]string, len(t.Types))
	for i, ty := range t.Types {
		line := fmt.Sprintf("%s %s", fit(ty.Code, 10), fit(ty.Name, 14))
		for _, k := range seatKinds {
			p, _ := booking.PriceFor(t, list, ty.Code, k)
			mark := " "
			if p.Source != "" {
				mark = "*"
			}
			line += fmt.Sprintf(" %10s%s", p.Amount.String(), mark)
		}
		rows[i] = line
	}
	head := fmt.Sprintf("%s %s", fit("Type", 10), fit("Name", 14))
	for _, k := range seatKinds {
		head += fmt.Sprintf(" %10s ", k.String())
	}
	b.WriteString(m.listLines(head, rows, h-4))
	b.WriteString("\n" + st.Subtle.Render("  * set for this list or seat kind; else the type's own price."))
	return b.String()
}

func (m *Model) pricesKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	k := &m.keys
	if g.prices == nil {
		return nil
	}
	switch {
	case key.Matches(msg, k.MgrList):
		step := 1
		if msg.String() == "shift+tab" {
			step = len(g.prices.Lists)
		}
		g.list = (g.list + step) % (len(g.prices.Lists) + 1)
	case key.Matches(msg, k.MgrSetPrice) && len(g.prices.Types) > 0:
		m.priceEntryForm()
	case key.Matches(msg, k.MgrTicketType):
		m.ticketTypeForm()
	case key.Matches(msg, k.MgrShowList):
		return m.pickShowCmd("Put a show on a price list", m.showListForm)
	}
	return nil
}

// priceEntryForm sets one price of the table, at the row under the
// cursor and the list on show.
func (m *Model) priceEntryForm() {
	g := &m.manage
	var codes []string
	for _, t := range g.prices.Types {
		codes = append(codes, t.Code)
	}
	kinds := make([]string, len(seatKinds))
	for i, k := range seatKinds {
		kinds[i] = k.String()
	}
	amount := textField("Price", 10, "")
	amount.f.accept = isAmountRune
	m.openForm("Set a price", "An empty list is the standing one; a new list name makes the list.", func(m *Model, v []string) (tea.Cmd, string, error) {
		list, err := booking.ParseListName(v[0], true)
		if err != nil {
			return nil, "", err
		}
		kind, _ := booking.ParseSeatKind(v[2])
		money, err := booking.ParseMoney(v[3])
		if err != nil {
			return nil, "", err
		}
		e := booking.PriceEntry{PriceKey: booking.PriceKey{List: list, Type: v[1], Kind: kind}, Amount: money}
		if err := e.Validate(); err != nil {
			return nil, "", err
		}
		return m.mgrDo(fmt.Sprintf("%s on a %s seat is now %s.", v[1], v[2], money), func(ctx context.Context, s Backend, a booking.Actor) error {
			return s.SetPriceEntry(ctx, a, e)
		}), "", nil
	}, textField("List", booking.MaxListName, g.listName()), choiceField("Ticket type", codes, codes[min(g.cursor, len(codes)-1)]),
		choiceField("Seat kind", kinds, "premium"), amount)
}

// ticketTypeForm adds a ticket type or changes its name and own price.
func (m *Model) ticketTypeForm() {
	g := &m.manage
	code, name, price := "", "", ""
	if g.cursor < len(g.prices.Types) {
		t := g.prices.Types[g.cursor]
		code, name, price = t.Code, t.Name, t.Price.String()
	}
	amount := textField("Own price", 10, price)
	amount.f.accept = isAmountRune
	m.openForm("A ticket type and its own price", "A new code adds a type; the own price is a standard seat on the standing list.", func(m *Model, v []string) (tea.Cmd, string, error) {
		money, err := booking.ParseMoney(v[2])
		switch {
		case v[0] == "":
			return nil, "", booking.Errorf(booking.EInvalid, "Type the ticket type's code, like adult.")
		case v[1] == "":
			return nil, "", booking.Errorf(booking.EInvalid, "A ticket type needs a name.")
		case err != nil:
			return nil, "", err
		}
		t := booking.TicketType{Code: v[0], Name: v[1], Price: money}
		return m.mgrDo(fmt.Sprintf("%s is now %s.", cut(v[1], 30), money), func(ctx context.Context, s Backend, a booking.Actor) error {
			return s.SetPrice(ctx, a, t)
		}), "", nil
	}, textField("Code", 20, code), textField("Name", 40, name), amount)
}

// listLabel names a price list, "standing" for "".
func listLabel(list string) string {
	if list == "" {
		return "standing"
	}
	return list
}
