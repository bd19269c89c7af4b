package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The manager's vouchers and gift cards (ctrl+g, 9 and 0). Vouchers: the
// list (code, what it takes off, uses left, the last day, what it is kept
// to), a to add one and r to retire the one selected. Gift cards:
// read-only, the newest first or one found by its number (f), each named
// by its last four digits; no key here moves money — a card is sold at
// the counter's gift-card screen.

// mgrCardsShown is how many of the newest gift cards the list reads.
const mgrCardsShown = 100

// moneyState is what the two sections read.
type moneyState struct {
	vouchers []booking.Voucher
	cards    []booking.GiftCardSummary
	// cardQuery is the number the gift cards were found by; "" the newest.
	cardQuery string
}

// moneyRows is how many rows the section's list has.
func (g *manageState) moneyRows() int {
	if g.section == mgrVouchers {
		return len(g.money.vouchers)
	}
	return len(g.money.cards)
}

func (m *Model) vouchersView(h int) string {
	g := &m.manage
	if len(g.money.vouchers) == 0 {
		return m.styles.Subtle.Render("  No vouchers yet: a adds one.")
	}
	rows := make([]string, len(g.money.vouchers))
	for i, v := range g.money.vouchers {
		until := v.LastDay()
		if until == "" {
			until = "no end"
		}
		state := v.LimitText()
		if v.Retired {
			state += " · retired"
		}
		rows[i] = fmt.Sprintf("%-14s %9s %9s  %-10s  %s", cut(v.Code, 14), v.OffText(), fmt.Sprintf("%d/%d", v.UsesLeft, v.Uses), until,
			cut(state, max(m.width-54, 10)))
	}
	return m.listLines(fmt.Sprintf("%-14s %9s %9s  %-10s  %s", "Code", "Off", "Uses left", "Until", "Kept to"), rows, h)
}

func (m *Model) giftCardsView(h int) string {
	g := &m.manage
	st := &m.styles
	head := "  The newest cards · f finds one by its number"
	if q := g.money.cardQuery; q != "" {
		head = "  Card …" + booking.CardTail(q) + " · f finds another, f then enter the newest"
	}
	out := st.Subtle.Render(head) + "\n"
	if len(g.money.cards) == 0 {
		return out + st.Subtle.Render("  No gift card found. Cards are sold at the counter's gift-card screen.")
	}
	rows := make([]string, len(g.money.cards))
	for i, c := range g.money.cards {
		used := "never"
		if !c.LastUsed.IsZero() {
			used = c.LastUsed.In(time.Local).Format("2 Jan 15:04")
		}
		rows[i] = fmt.Sprintf("…%-6s %9s %9s  %-12s  %-12s  %s", c.Tail, c.Balance.String(), c.Amount.String(),
			c.IssuedAt.In(time.Local).Format("2 Jan 15:04"), used, cut(c.IssuedBy, max(m.width-64, 8)))
	}
	return out + m.listLines(fmt.Sprintf("%-7s %9s %9s  %-12s  %-12s  %s", "Card", "Balance", "Sold for", "Issued", "Last used", "By"), rows, h-1)
}

func (m *Model) vouchersKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	switch {
	case key.Matches(msg, m.keys.MgrAdd):
		m.voucherForm()
	case len(g.money.vouchers) == 0:
	case key.Matches(msg, m.keys.MgrRetire):
		return m.retireVoucher(g.money.vouchers[g.cursor])
	}
	return nil
}

// retireVoucher asks before retiring v, No by default. One retired
// already is not asked about: retiring is for good, so the store can only
// refuse it, and its refusal is the message the command line gives too.
func (m *Model) retireVoucher(v booking.Voucher) tea.Cmd {
	retire := m.mgrDo("Retired voucher "+v.Code+": the checkout no longer takes it.", func(ctx context.Context, s Backend, a booking.Actor) error {
		_, err := s.RetireVoucher(ctx, a, v.Code)
		return err
	})
	if v.Retired {
		return retire
	}
	m.ask(fmt.Sprintf("Retire voucher %s (%s, %d of %d uses left)? The checkout stops taking it for good; the sales that used it stay.",
		v.Code, v.OffText(), v.UsesLeft, v.Uses), retire)
	return nil
}

func (m *Model) giftCardsKey(msg tea.KeyPressMsg) tea.Cmd {
	if !key.Matches(msg, m.keys.MgrFind) {
		return nil
	}
	m.openForm("Find a gift card", "Type its 16 digits as printed; leave it empty for the newest cards.", func(m *Model, v []string) (tea.Cmd, string, error) {
		number := ""
		if strings.TrimSpace(v[0]) != "" {
			n, err := booking.ParseCardNumber(v[0])
			if err != nil {
				return nil, "", err
			}
			number = n
		}
		m.manage.form, m.manage.money.cardQuery = nil, number
		return m.mgrLoadCmd(), "", nil
	}, textField("Card number", booking.CardDigits+8, ""))
	m.manage.form.verb = "find"
	return nil
}

// voucherForm adds a voucher: its code, an amount or a percentage off,
// how many uses, the last day, and what it is kept to: a film and a show
// by their numbers (as the films list and the week show them) and a
// ticket type by its code, each empty for any. The store refuses a film,
// show or ticket type that names none, as it does for the command line.
func (m *Model) voucherForm() {
	uses := textField("Uses", 6, "1")
	uses.f.accept = isDigit
	film, show := textField("Film", voucherIDDigits, ""), textField("Show", voucherIDDigits, "")
	film.f.accept, show.f.accept = isDigit, isDigit
	m.openForm("Add a voucher", "Off is an amount (5.00) or a percentage (10%). Until is the last day, like 2026-12-31, or empty for no end. "+
		"Film, show (their numbers) and ticket type keep it to them; empty for any.",
		func(m *Model, v []string) (tea.Cmd, string, error) {
			vc, err := voucherFromForm(v)
			if err != nil {
				return nil, "", err
			}
			said := "Added voucher " + vc.Code + ": " + vc.OffText()
			if vc.FilmID != 0 || vc.ShowID != 0 || vc.TicketType != "" {
				said += ", for " + vc.LimitText()
			}
			return m.mgrDo(said+".", func(ctx context.Context, s Backend, a booking.Actor) error {
				_, err := s.AddVoucher(ctx, a, vc)
				return err
			}), "", nil
		}, textField("Code", booking.MaxVoucherCode, ""), textField("Off", 10, ""), uses, textField("Until", 10, ""),
		film, show, textField("Ticket type", 16, ""))
}

// voucherIDDigits bounds the film and show fields: ids far beyond any
// cinema's, and short enough that a number typed always parses.
const voucherIDDigits = 12

// voucherFromForm reads the voucher form's values; the store checks the
// rest (booking.ValidVoucher) and says what is wrong.
func voucherFromForm(v []string) (booking.Voucher, error) {
	code, err := booking.ParseVoucherCode(v[0])
	if err != nil {
		return booking.Voucher{}, err
	}
	vc := booking.Voucher{Code: code, TicketType: strings.ToLower(strings.TrimSpace(v[6]))}
	for i, id := range []*int64{&vc.FilmID, &vc.ShowID} {
		if t := strings.TrimSpace(v[4+i]); t != "" {
			n, err := strconv.ParseInt(t, 10, 64)
			if err != nil || n < 1 {
				return vc, booking.Errorf(booking.EInvalid, "Type the %s's number, like 12, or leave it empty for any.", []string{"film", "show"}[i])
			}
			*id = n
		}
	}
	off := strings.TrimSpace(v[1])
	if p, ok := strings.CutSuffix(off, "%"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return vc, booking.Errorf(booking.EInvalid, "Type a percentage like 10%%, or an amount like 5.00.")
		}
		vc.Percent = n
	} else {
		money, err := booking.ParseMoney(off)
		if err != nil {
			return vc, booking.Errorf(booking.EInvalid, "Type an amount like 5.00, or a percentage like 10%%.")
		}
		vc.Off = money
	}
	n, err := strconv.Atoi(v[2])
	if err != nil || n < 1 || n > booking.MaxVoucherUses {
		return vc, booking.Errorf(booking.EInvalid, "A voucher is used 1 to %d times.", booking.MaxVoucherUses)
	}
	vc.Uses = n
	if u := strings.TrimSpace(v[3]); u != "" {
		if vc.Until, err = booking.ParseVoucherUntil(u, time.Local); err != nil {
			return vc, err
		}
	}
	return vc, nil
}
