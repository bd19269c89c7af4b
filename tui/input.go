package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// field is a one-line text entry. It is deliberately smaller than
// bubbles/textinput: no blinking cursor means no timer messages and
// byte-stable golden files.
type field struct {
	value []rune
	max   int
	mask  bool // a PIN: drawn as dots
	// accept, when set, filters typed runes (digits for amounts).
	accept func(r rune) bool
}

func newField(max int) field { return field{max: max} }

// String returns the typed text, cleaned of control characters.
func (f field) String() string { return strings.TrimSpace(booking.Clean(string(f.value))) }

// Empty reports whether nothing has been typed.
func (f field) Empty() bool { return len(f.value) == 0 }

// Reset clears the field.
func (f *field) Reset() { f.value = f.value[:0] }

// Set replaces the text.
func (f *field) Set(s string) {
	f.value = f.value[:0]
	f.insert(s)
}

// insert appends text typed or pasted, dropping control characters.
func (f *field) insert(s string) {
	for _, r := range booking.Clean(s) {
		if f.max > 0 && len(f.value) >= f.max {
			return
		}
		if f.accept != nil && !f.accept(r) {
			continue
		}
		f.value = append(f.value, r)
	}
}

// key edits the field with a key press and reports whether it used it.
func (f *field) key(msg tea.KeyPressMsg, k *KeyMap) bool {
	switch {
	case key.Matches(msg, k.DeleteChar):
		if len(f.value) > 0 {
			f.value = f.value[:len(f.value)-1]
		}
		return true
	case key.Matches(msg, k.ClearField):
		f.Reset()
		return true
	case key.Matches(msg, k.DeleteWord):
		s := strings.TrimRight(string(f.value), " ")
		if i := strings.LastIndex(s, " "); i >= 0 {
			f.value = []rune(s[:i+1])
		} else {
			f.Reset()
		}
		return true
	}
	if isText(msg) {
		f.insert(msg.Text)
		return true
	}
	return false
}

// promptKey edits a one-line prompt: enter closes it and submits the
// text, esc closes it, anything else types.
func (m *Model) promptKey(msg tea.KeyPressMsg, open *bool, f *field, submit func(string) tea.Cmd) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Submit):
		*open = false
		text := f.String()
		f.Reset()
		return submit(text)
	case key.Matches(msg, m.keys.Back):
		*open = false
		f.Reset()
	default:
		f.key(msg, &m.keys)
	}
	return nil
}

// isText reports whether a key press types printable text.
func isText(msg tea.KeyPressMsg) bool {
	return msg.Text != "" && msg.Mod&^tea.ModShift == 0
}

// view draws the field, width cells wide.
func (f field) view(st *Styles, focused bool, width int) string {
	s := string(f.value)
	if f.mask {
		s = strings.Repeat("*", len(f.value))
	}
	s = booking.Clean(s)
	if focused {
		s += "_"
	}
	if r := []rune(s); len(r) > width {
		s = string(r[len(r)-width:])
	}
	if pad := width - len([]rune(s)); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	if focused {
		return st.InputOn.Render(s)
	}
	return st.Input.Render(s)
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func isAmountRune(r rune) bool { return isDigit(r) || r == '.' || r == ',' }

// isPhoneRune is what a phone field takes: digits, +, space, - and ().
func isPhoneRune(r rune) bool { return isDigit(r) || strings.ContainsRune("+ -()", r) }
