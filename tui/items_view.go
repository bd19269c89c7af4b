package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The items screen's drawing, its help and a manager's forms (items.go
// has the rest).

// itemSubmit checks a form's values and returns the change to run, or
// what is wrong.
type itemSubmit func(vals []string) (tea.Cmd, error)

// itemForm is a manager's change to the items: labelled text fields, as
// the manager screens' forms; enter saves.
type itemForm struct {
	title, note string
	fields      []mgrField
	focus       int
	err         string
	submit      itemSubmit
}

func (m *Model) openItemForm(title, note string, submit itemSubmit, fields ...mgrField) {
	m.items.form = &itemForm{title: title, note: note, fields: fields, submit: submit}
	m.setInfo("")
}

func (m *Model) itemFormKey(msg tea.KeyPressMsg) tea.Cmd {
	f, k := m.items.form, m.keys
	switch {
	case key.Matches(msg, k.Back):
		m.items.form = nil
		m.setInfo("Nothing changed.")
	case key.Matches(msg, k.Submit):
		vals := make([]string, len(f.fields))
		for i := range f.fields {
			vals[i] = f.fields[i].value()
		}
		cmd, err := f.submit(vals)
		if err != nil {
			f.err = errorText(err)
			return nil
		}
		f.err = ""
		return cmd
	case key.Matches(msg, k.NextField):
		f.focus = (f.focus + 1) % len(f.fields)
	case key.Matches(msg, k.PrevField):
		f.focus = (f.focus + len(f.fields) - 1) % len(f.fields)
	default:
		f.fields[f.focus].f.key(msg, &m.keys)
	}
	return nil
}

func (itemsScreen) help(m *Model) helpKeys {
	s, k := &m.items, m.keys
	switch {
	case s.retire != nil:
		return helpKeys{short: []key.Binding{says(k.MgrYes, "yes, retire it"), relabel(k.No, "n/esc", "no")}}
	case s.form != nil:
		save := says(k.Submit, "save")
		return helpKeys{short: []key.Binding{save, relabel(k.NextField, "tab", "next field"), says(k.Back, "cancel")},
			full: [][]key.Binding{{save, k.NextField, k.PrevField, says(k.Back, "cancel")}, {k.DeleteChar, k.ClearField, k.DeleteWord}}}
	case s.paying:
		enter := says(k.Confirm, "next")
		if s.focus == paySell {
			enter = says(k.Confirm, "sell")
		} else if s.focus == payTendered {
			enter = says(k.Confirm, "to Sell")
		}
		back := says(k.Back, "back to the basket")
		return helpKeys{short: []key.Binding{enter, k.NextField, back, k.Help},
			full: [][]key.Binding{{k.NextField, k.PrevField, k.Method, enter, back}, k.global()}}
	}
	more, less := says(k.NextDay, "one more"), says(k.PrevDay, "one less")
	pay := says(k.Open, "pay")
	count := relabel(k.Count, "1-9", "how many")
	full := [][]key.Binding{{k.Up, k.Down, more, less, count, pay}, k.global()}
	if m.mayManageItems() {
		full = append(full, []key.Binding{says(k.MgrAdd, "add an item"), says(k.MgrEdit, "price"), says(k.MgrSetPrice, "stock-take"),
			says(k.MgrDisable, "delivery"), says(k.MgrRetire, "retire")})
	}
	return helpKeys{short: []key.Binding{more, less, pay, says(k.Back, "back"), k.Help}, full: full}
}

func (itemsScreen) view(m *Model, height int) string {
	st := &m.styles
	s := &m.items
	var b strings.Builder
	title := "Items · sell at the counter"
	if m.mayManageItems() {
		title += st.Subtle.Render(" · a add · e price · s stock-take · d delivery · r retire")
	}
	b.WriteString(st.Title.Render(cut(title, m.width)) + "\n\n")
	switch {
	case s.form != nil:
		return b.String() + m.itemFormView()
	case !s.loaded:
		return b.String() + st.Subtle.Render("  Loading…")
	case len(s.list) == 0:
		b.WriteString(st.Subtle.Render("  No items on sale."))
		if m.mayManageItems() {
			b.WriteString(st.Subtle.Render(" a adds one."))
		}
		return b.String()
	}
	rows := max(height-10, 3)
	if s.paying {
		rows = max(height-14, 2)
	}
	m.itemRows(&b, rows)
	_, total, ok := s.basket()
	b.WriteString("\n")
	switch {
	case s.retire != nil:
		q := "Retire " + booking.CleanLine(s.retire.Name, 40) + "? It is sold no more. y/N"
		b.WriteString("  " + st.Banner.Render(" "+cut(q, max(m.width-6, 10))+" "))
	case s.paying:
		m.itemPayView(&b, total)
	case ok:
		b.WriteString(st.Bold.Render(fmt.Sprintf("  %-30s %9s", "Basket", total.String())) + st.Subtle.Render("  enter to pay"))
	case s.last != nil:
		b.WriteString(st.Subtle.Render("  Last sold: " + s.last.Number + " · " + s.last.Total.String()))
	default:
		b.WriteString(st.Subtle.Render("  → or + puts one in the basket."))
	}
	return b.String()
}

// itemRows draws the list: one row an item with its price, stock and how
// many are in the basket; rows scroll with the cursor.
func (m *Model) itemRows(b *strings.Builder, rows int) {
	st := &m.styles
	s := &m.items
	nameW := max(min(m.width-52, 30), 8)
	b.WriteString(st.Subtle.Render(fmt.Sprintf("  %-16s %s %9s  %-15s %4s", "Code", fit("Name", nameW), "Price", "Stock", "Qty")) + "\n")
	first := 0
	if s.cursor >= rows {
		first = s.cursor - rows + 1
	}
	for i := first; i < len(s.list) && i < first+rows; i++ {
		it := s.list[i]
		stock := it.StockText()
		switch {
		case it.Retired:
			stock = "retired"
		case it.Stock != nil && *it.Stock == 0:
			stock = "0 sold out"
		case it.Low():
			stock += " low"
		}
		qty := ""
		if n := s.qty[it.Code]; n > 0 {
			qty = fmt.Sprint(n)
		}
		line := fmt.Sprintf("  %-16s %s %9s  %-15s %4s", it.Code, fit(booking.Clean(it.Name), nameW), it.Price.String(), stock, qty)
		switch {
		case i == s.cursor && !s.paying:
			b.WriteString(st.Selected.Render(line))
		case it.Retired:
			b.WriteString(st.Faint.Render(line))
		default:
			b.WriteString(line)
		}
		b.WriteString("\n")
	}
	if n := len(s.list) - first - rows; n > 0 {
		b.WriteString(st.Subtle.Render(fmt.Sprintf("  … %d more", n)) + "\n")
	}
}

// itemPayView draws the payment: the method, the cash and change, the
// float when the sale needs a shift opened, and Sell.
func (m *Model) itemPayView(b *strings.Builder, total booking.Money) {
	st := &m.styles
	s := &m.items
	on := func(f payFocus) bool { return !s.busy && s.focus == f }
	label := func(f payFocus, text string) string {
		if on(f) {
			return st.Cursor.Render("› ") + st.Bold.Render(text)
		}
		return "  " + st.Label.Render(text)
	}
	b.WriteString(st.Bold.Render(fmt.Sprintf("  %-30s %9s", "Total", total.String())) + "\n")
	cash, card := " cash ", " card "
	if s.method == booking.Cash {
		cash = st.Selected.Render("[cash]")
	} else {
		card = st.Selected.Render("[card]")
	}
	b.WriteString(label(payMethod, "Payment   ") + cash + " " + card + "\n")
	if s.method == booking.Cash {
		b.WriteString(label(payTendered, "Tendered  ") + s.tendered.view(st, on(payTendered), 10) + "  " + itemsChange(st, s.tendered, total) + "\n")
		if s.noShift {
			b.WriteString(label(payFloat, "Float     ") + s.float.view(st, on(payFloat), 10) + st.Subtle.Render("  "+floatNote) + "\n")
		}
	}
	button := "[ Sell · " + total.String() + " " + string(s.method) + " ]"
	if s.busy {
		button = "Selling…"
	}
	if on(paySell) {
		b.WriteString(st.Cursor.Render("› ") + st.Selected.Render(button))
	} else {
		b.WriteString("  " + st.Label.Render(button))
	}
}

// itemsChange is the change due for the cash typed, or exact money.
func itemsChange(st *Styles, tendered field, total booking.Money) string {
	if tendered.Empty() {
		return st.Subtle.Render("empty = exact money")
	}
	t, err := booking.ParseMoney(tendered.String())
	switch {
	case err != nil:
		return st.Error.Render("not an amount")
	case t < total:
		return st.Error.Render("short by " + (total - t).String())
	}
	return st.Label.Render("Change due ") + st.Money.Render((t - total).String())
}

func (m *Model) itemFormView() string {
	st := &m.styles
	f := m.items.form
	var b strings.Builder
	b.WriteString("  " + st.Bold.Render(booking.Clean(f.title)) + "\n")
	if f.note != "" {
		b.WriteString("  " + st.Subtle.Render(cut(f.note, m.width-4)) + "\n")
	}
	b.WriteString("\n")
	width := max(min(m.width-24, 50), 12)
	for i := range f.fields {
		x := &f.fields[i]
		b.WriteString("  " + st.Label.Render(fmt.Sprintf("%-12s", x.label)) + x.f.view(st, i == f.focus && !m.items.busy, width) + "\n")
	}
	b.WriteString("\n")
	switch {
	case f.err != "":
		b.WriteString("  " + st.Error.Render(cut(f.err, m.width-4)))
	case m.items.busy:
		b.WriteString("  " + st.Subtle.Render("Saving…"))
	default:
		b.WriteString("  " + st.Subtle.Render("enter saves · esc leaves everything as it is"))
	}
	return b.String()
}

// itemReportRows adds to an X or Z report on the shift screen the items
// sold in the shift by category, and on an X report what runs low.
func itemReportRows(r *booking.ShiftReport, row func(label, value string)) {
	for _, t := range r.Items {
		v := fmt.Sprintf("%d sold, %s", t.Sold, t.Sales.String())
		if t.Refunded > 0 {
			v += fmt.Sprintf("; %d refunded, %s", t.Refunded, t.Refunds.String())
		}
		row("Items "+cut(booking.CategoryName(booking.Clean(t.Category)), 12), v)
	}
	if len(r.LowStock) == 0 {
		return
	}
	low := make([]string, len(r.LowStock))
	for i, it := range r.LowStock {
		low[i] = booking.CleanLine(it.Name, 20) + " " + it.StockText()
	}
	row("Low stock", cut(strings.Join(low, ", "), 60))
}
