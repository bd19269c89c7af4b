package store

import (
	"strings"
	"testing"

	"boxoffice/booking"
)

// chain is n rows of the trail with ids 1..n, each hashed after the one
// before.
func chain(n int) []AuditLink {
	var out []AuditLink
	var prev []byte
	for id := int64(1); id <= int64(n); id++ {
		r := AuditRow{At: 1000 * id, Actor: "ann", Role: "clerk", Action: booking.AuditSale, ShowID: 1, Amount: 1250, Detail: "card: A1"}
		prev = ChainHash(prev, id, r)
		out = append(out, AuditLink{ID: id, Row: r, Hash: prev})
	}
	return out
}

// check feeds links to a ChainCheck and returns its problem.
func check(links []AuditLink) string {
	var c ChainCheck
	for _, l := range links {
		if !c.Add(l) {
			break
		}
	}
	return c.Problem()
}

func TestChainCheck_NamesTheFirstBrokenLink(t *testing.T) {
	t.Parallel()
	whole := chain(8)
	changed := chain(8)
	changed[2].Row.Amount = 1
	unchainedTail := chain(8)
	unchainedTail[6].Hash, unchainedTail[7].Hash = nil, nil
	hashless := chain(8)
	hashless[3].Hash = nil
	for name, c := range map[string]struct {
		links []AuditLink
		want  string
	}{
		"Whole":         {whole, ""},
		"UnchainedTail": {unchainedTail, ""},
		"Removed":       {append(chain(8)[:4:4], chain(8)[5:]...), "broken at row 6: it does not follow row 4"},
		"First":         {chain(8)[1:], "broken at row 2: it does not follow the start of the trail"},
		"Changed":       {changed, "broken at row 3: it does not follow row 2"},
		"HashRemoved":   {hashless, "broken at row 5: row 4 before it carries no hash"},
	} {
		got := check(c.links)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}

// Each field is in the hash: a change to any one of them breaks the link.
func TestChainHash_EveryField(t *testing.T) {
	t.Parallel()
	base := AuditRow{At: 1, Actor: "a", Role: "r", Terminal: "t", Action: "x", ShowID: 1, BookingID: 2, ShiftID: 3, Amount: 4, Detail: "d"}
	want := ChainHash(nil, 1, base)
	for name, r := range map[string]AuditRow{
		"At": {At: 2, Actor: "a", Role: "r", Terminal: "t", Action: "x", ShowID: 1, BookingID: 2, ShiftID: 3, Amount: 4, Detail: "d"},
		// "ar" + "" and "a" + "r" must not encode alike.
		"Shifted":   {At: 1, Actor: "ar", Role: "", Terminal: "t", Action: "x", ShowID: 1, BookingID: 2, ShiftID: 3, Amount: 4, Detail: "d"},
		"Terminal":  {At: 1, Actor: "a", Role: "r", Terminal: "T", Action: "x", ShowID: 1, BookingID: 2, ShiftID: 3, Amount: 4, Detail: "d"},
		"Action":    {At: 1, Actor: "a", Role: "r", Terminal: "t", Action: "y", ShowID: 1, BookingID: 2, ShiftID: 3, Amount: 4, Detail: "d"},
		"ShowID":    {At: 1, Actor: "a", Role: "r", Terminal: "t", Action: "x", ShowID: 9, BookingID: 2, ShiftID: 3, Amount: 4, Detail: "d"},
		"BookingID": {At: 1, Actor: "a", Role: "r", Terminal: "t", Action: "x", ShowID: 1, BookingID: 9, ShiftID: 3, Amount: 4, Detail: "d"},
		"ShiftID":   {At: 1, Actor: "a", Role: "r", Terminal: "t", Action: "x", ShowID: 1, BookingID: 2, ShiftID: 9, Amount: 4, Detail: "d"},
		"Amount":    {At: 1, Actor: "a", Role: "r", Terminal: "t", Action: "x", ShowID: 1, BookingID: 2, ShiftID: 3, Amount: 9, Detail: "d"},
		"Detail":    {At: 1, Actor: "a", Role: "r", Terminal: "t", Action: "x", ShowID: 1, BookingID: 2, ShiftID: 3, Amount: 4, Detail: "e"},
	} {
		if string(ChainHash(nil, 1, r)) == string(want) {
			t.Errorf("%s changed and the hash did not", name)
		}
	}
	if string(ChainHash(nil, 2, base)) == string(want) {
		t.Error("the id changed and the hash did not")
	}
	if string(ChainHash(want, 1, base)) == string(want) {
		t.Error("the row before changed and the hash did not")
	}
}
