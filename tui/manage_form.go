package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// The manager screens' forms and questions. A form is labelled fields,
// each typed text or a choice picked with ← →; enter checks what was typed
// (submit) and either runs the change, asks first, or says what is wrong
// on the form without calling the store.

// mgrField is one field of a form.
type mgrField struct {
	label string
	f     field
	// choices, when set, make the field a choice: ← → pick one.
	choices []string
	pick    int
}

// value is what the field holds: the typed text or the choice.
func (x *mgrField) value() string {
	if x.choices != nil {
		return x.choices[x.pick]
	}
	return x.f.String()
}

// textField is a text field of at most n runes holding value.
func textField(label string, n int, value string) mgrField {
	x := mgrField{label: label, f: newField(n)}
	x.f.Set(value)
	return x
}

// choiceField is a choice among choices, at the one equal to value.
func choiceField(label string, choices []string, value string) mgrField {
	x := mgrField{label: label, choices: choices}
	for i, c := range choices {
		if c == value {
			x.pick = i
		}
	}
	return x
}

// mgrSubmit checks a form's values and returns the change to run, or a
// question to ask before it ("" for none), or what is wrong.
type mgrSubmit func(m *Model, vals []string) (cmd tea.Cmd, ask string, err error)

// mgrForm is a form over a section.
type mgrForm struct {
	title  string
	note   string // said under the title
	fields []mgrField
	focus  int
	err    string // what is wrong, checked here or refused by the store
	submit mgrSubmit
	// verb is what enter does, for the hint bar: "save" when empty.
	verb string
}

// mgrConfirm is a question before a destructive change; only y runs it.
type mgrConfirm struct {
	question string
	yes      tea.Cmd
}

// openForm puts a form over the section.
func (m *Model) openForm(title, note string, submit mgrSubmit, fields ...mgrField) {
	m.manage.form = &mgrForm{title: title, note: note, fields: fields, submit: submit}
	m.manage.note = ""
	m.setInfo("")
}

// ask puts a question over the section; y runs yes.
func (m *Model) ask(question string, yes tea.Cmd) {
	m.manage.confirm = &mgrConfirm{question: question, yes: yes}
}

func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	f := g.form
	k := &m.keys
	x := &f.fields[f.focus]
	switch {
	case g.busy:
		return nil
	case key.Matches(msg, k.Back):
		g.form = nil
		return nil
	case key.Matches(msg, k.Submit):
		return m.submitForm()
	case key.Matches(msg, k.NextField):
		f.focus = (f.focus + 1) % len(f.fields)
		return nil
	case key.Matches(msg, k.PrevField):
		f.focus = (f.focus + len(f.fields) - 1) % len(f.fields)
		return nil
	case x.choices != nil && key.Matches(msg, k.Choose):
		step := 1
		if msg.String() == "left" {
			step = len(x.choices) - 1
		}
		x.pick = (x.pick + step) % len(x.choices)
		return nil
	case x.choices == nil:
		x.f.key(msg, k)
	}
	return nil
}

// submitForm checks the form and runs its change, or asks first.
func (m *Model) submitForm() tea.Cmd {
	g := &m.manage
	f := g.form
	vals := make([]string, len(f.fields))
	for i := range f.fields {
		vals[i] = f.fields[i].value()
	}
	cmd, question, err := f.submit(m, vals)
	if err != nil {
		f.err = errorText(err)
		return nil
	}
	f.err = ""
	if question != "" {
		m.ask(question, cmd)
		return nil
	}
	return cmd
}

func (m *Model) mgrConfirmKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	c := g.confirm
	g.confirm = nil
	if key.Matches(msg, m.keys.MgrYes) {
		return c.yes
	}
	m.setInfo("Nothing changed.")
	return nil
}

func (m *Model) formView() string {
	st := &m.styles
	f := m.manage.form
	var b strings.Builder
	b.WriteString("  " + st.Bold.Render(cut(f.title, m.width-4)) + "\n")
	if f.note != "" {
		b.WriteString(st.Subtle.Render(indent(wrapText(f.note, m.width-4, 3), 2)) + "\n")
	}
	b.WriteString("\n")
	width := max(min(m.width-24, 60), 20)
	for i := range f.fields {
		x := &f.fields[i]
		on := i == f.focus
		var v string
		if x.choices != nil {
			v = "‹ " + x.choices[x.pick] + " ›"
			if on {
				v = st.InputOn.Render(v)
			} else {
				v = st.Input.Render(v)
			}
		} else {
			v = x.f.view(st, on && !m.manage.busy, width)
		}
		b.WriteString("  " + st.Label.Render(fmt.Sprintf("%-16s", x.label)) + v + "\n")
	}
	b.WriteString("\n")
	switch {
	case f.err != "":
		b.WriteString(st.Error.Render(indent(wrapText(f.err, m.width-4, 3), 2)) + "\n")
	case m.manage.busy:
		b.WriteString("  " + st.Subtle.Render("Saving…") + "\n")
	}
	return b.String()
}

func (m *Model) confirmView() string {
	st := &m.styles
	var b strings.Builder
	q := ansi.Wordwrap(booking.Clean(m.manage.confirm.question)+" y/N", max(m.width-8, 20), " ")
	for _, l := range strings.Split(q, "\n") {
		b.WriteString("  " + st.Banner.Render(" "+padRight(l, max(m.width-8, 20))+" ") + "\n")
	}
	b.WriteString("\n  " + st.Subtle.Render("y does it; n, enter or esc leaves everything as it is.") + "\n")
	return b.String()
}

func (m *Model) formHelp() helpKeys {
	k := m.keys
	f := m.manage.form
	verb := f.verb
	if verb == "" {
		verb = "save"
	}
	save := says(k.Submit, verb)
	next := relabel(k.NextField, "tab", "next field")
	prev := relabel(k.PrevField, "shift+tab", "previous field")
	back := says(k.Back, "cancel")
	short := []key.Binding{save, next}
	if f.fields[f.focus].choices != nil {
		short = append(short, says(k.Choose, "choose"))
	}
	short = append(short, back)
	return helpKeys{short: short, full: [][]key.Binding{{save, next, prev, says(k.Choose, "choose"), back}, {k.DeleteChar, k.ClearField, k.DeleteWord}}}
}

// wrapText cleans s and wraps it at word boundaries to lines of at most
// width cells, keeping its own line breaks: a message that would be cut
// at the edge goes on to the next line instead. A word longer than the
// line is broken; past maxLines (0: no limit) the last line kept ends in
// "…". It returns the lines joined by "\n".
func wrapText(s string, width, maxLines int) string {
	width = max(width, 10)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, strings.Split(ansi.Wrap(booking.Clean(para), width, " "), "\n")...)
	}
	for i := range out {
		out[i] = strings.TrimRight(out[i], " ")
	}
	if maxLines > 0 && len(out) > maxLines {
		out = out[:maxLines]
		out[maxLines-1] = ansi.Truncate(out[maxLines-1], width-1, "") + "…"
	}
	return strings.Join(out, "\n")
}
