package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
)

func (customerScreen) help(m *Model) helpKeys {
	k := m.keys
	if m.customer.adding {
		enter := says(k.Submit, "next field")
		if m.customer.focus == custOpen {
			enter = says(k.Submit, "open the account")
		}
		return helpKeys{short: []key.Binding{enter, k.NextField, says(k.Back, "back to the search"), k.Help}}
	}
	s := &m.customer
	open, put, back := says(k.Open, "search"), "put on the sale", says(k.Back, "back to the checkout")
	if s.from == screenGiftCard {
		put, back = "put on the card", says(k.Back, "back to the gift cards")
	}
	if s.query.String() == s.searched && len(s.results) > 0 {
		open = says(k.Open, put)
	}
	return helpKeys{
		short: []key.Binding{open, k.Down, says(k.Account, "new account"), back, k.Help},
		full:  [][]key.Binding{{k.Up, k.Down, k.Open}, {k.Account, k.Back}, k.global()},
	}
}

func (customerScreen) view(m *Model, height int) string {
	st := &m.styles
	s := &m.customer
	var b strings.Builder
	if s.adding {
		b.WriteString(st.Title.Render("New customer account") + st.Subtle.Render(" · one per e-mail address and phone") + "\n\n")
		label := func(f int, text string) string {
			if !s.busy && s.focus == f {
				return st.Cursor.Render("› ") + st.Bold.Render(text)
			}
			return "  " + st.Label.Render(text)
		}
		on := func(f int) bool { return !s.busy && s.focus == f }
		b.WriteString(label(custName, "Name    ") + s.name.view(st, on(custName), 40) + "\n")
		b.WriteString(label(custEmail, "E-mail  ") + s.email.view(st, on(custEmail), 40) + "\n")
		b.WriteString(label(custPhone, "Phone   ") + s.phone.view(st, on(custPhone), 24) + st.Subtle.Render("  optional") + "\n")
		button := "[ Open the account ]"
		if on(custOpen) {
			b.WriteString(st.Cursor.Render("› ") + st.Selected.Render(button))
		} else {
			b.WriteString("  " + st.Label.Render(button))
		}
		return b.String()
	}
	b.WriteString(st.Title.Render("Customer account") + st.Subtle.Render(" · by e-mail address, phone or name") + "\n\n")
	b.WriteString(st.Label.Render("  Search ") + s.query.view(st, !s.busy, 40) + "\n\n")
	if s.busy {
		b.WriteString(st.Subtle.Render("  Searching…"))
		return b.String()
	}
	rows := max(height-5, 1)
	first := 0
	if s.cursor >= rows {
		first = s.cursor - rows + 1
	}
	for i := first; i < len(s.results) && i < first+rows; i++ {
		c := s.results[i]
		phone := ""
		if c.Phone != "" {
			phone = "+" + c.Phone
		}
		line := fmt.Sprintf("  %6d  %s  %s  %s", c.ID, fit(c.Name, 22), fit(c.Email, max(m.width-56, 10)), fit(phone, 16))
		if i == s.cursor {
			b.WriteString(st.Selected.Render(line))
		} else {
			b.WriteString(line)
		}
		b.WriteString("\n")
	}
	b.WriteString(m.customerCardsLine())
	if s.searched != "" && len(s.results) == 0 {
		b.WriteString(st.Subtle.Render("  Nobody matches · ctrl+a opens a new account"))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// customerLine is the checkout's note beside the customer's name: the
// account on the sale, or the key that finds one.
func (m *Model) customerLine() string {
	st := &m.styles
	c := m.checkout.customer
	if c == nil {
		return st.Subtle.Render("  optional · ctrl+a account")
	}
	return st.Label.Render("  account " + fmt.Sprint(c.ID))
}

// customerID is the account on the sale, 0 for none.
func (c *checkoutState) customerID() int64 {
	if c.customer == nil {
		return 0
	}
	return c.customer.ID
}
