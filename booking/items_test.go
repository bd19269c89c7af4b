package booking

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseItemLine(t *testing.T) {
	for in, want := range map[string]string{
		"popcorn:2":                        "popcorn 2",
		" PopCorn ":                        "popcorn 1",
		"cola:99":                          "cola 99",
		"ice-cream:1":                      "ice-cream 1",
		"popcorn:0":                        "invalid",
		"popcorn:100":                      "invalid",
		"popcorn:-1":                       "invalid",
		"popcorn:x":                        "invalid",
		":2":                               "invalid",
		"pop corn:1":                       "invalid",
		"popcörn:1":                        "invalid",
		strings.Repeat("a", MaxItemCode+1): "invalid",
	} {
		l, err := ParseItemLine(in)
		got := fmt.Sprintf("%s %d", l.Code, l.Qty)
		if err != nil {
			got = ErrorCode(err)
		}
		if got != want {
			t.Errorf("ParseItemLine(%q) = %s (%v), want %s", in, got, err, want)
		}
	}
}

func TestNormalItemLines(t *testing.T) {
	got, err := NormalItemLines([]ItemLine{{"popcorn", 2}, {"Cola", 1}, {"popcorn", 3}})
	if err != nil || fmt.Sprint(got) != "[{cola 1} {popcorn 5}]" {
		t.Fatalf("%v %v", got, err)
	}
	for name, lines := range map[string][]ItemLine{
		"None":      nil,
		"TooMany":   {{"popcorn", 60}, {"popcorn", 40}},
		"Zero":      {{"popcorn", 0}},
		"BadCode":   {{"pop corn", 1}},
		"ManyItems": manyLines(MaxItemLines + 1),
	} {
		if _, err := NormalItemLines(lines); ErrorCode(err) != EInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := NormalItemLines(manyLines(MaxItemLines)); err != nil {
		t.Errorf("%d lines: %v", MaxItemLines, err)
	}
}

func manyLines(n int) []ItemLine {
	out := make([]ItemLine, n)
	for i := range out {
		out[i] = ItemLine{Code: fmt.Sprint("item", i), Qty: 1}
	}
	return out
}

func TestValidItem(t *testing.T) {
	n := 5
	it, err := ValidItem(Item{Code: " Popcorn", Name: " Popcorn\x1b[2J (large) ", Category: " Snacks ", Price: 4_50, Stock: &n})
	if err != nil || it.Code != "popcorn" || it.Name != "Popcorn[2J (large)" || it.Category != "snacks" {
		t.Fatalf("%+v %v", it, err)
	}
	neg, big := -1, MaxItemStock+1
	for name, bad := range map[string]Item{
		"NoName":       {Code: "a", Price: 1},
		"LongName":     {Code: "a", Name: strings.Repeat("n", MaxItemName+1)},
		"LongCategory": {Code: "a", Name: "A", Category: strings.Repeat("c", MaxItemCategory+1)},
		"Negative":     {Code: "a", Name: "A", Price: -1},
		"Dear":         {Code: "a", Name: "A", Price: MaxMoney + 1},
		"NegStock":     {Code: "a", Name: "A", Stock: &neg},
		"BigStock":     {Code: "a", Name: "A", Stock: &big},
		"BadCode":      {Code: "a b", Name: "A"},
	} {
		if _, err := ValidItem(bad); ErrorCode(err) != EInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseItemStock(t *testing.T) {
	for in, want := range map[string]string{"0": "0", "50": "50", " Unlimited ": "unlimited", "-1": "invalid", "+3": "invalid",
		"1e3": "invalid", "1000001": "invalid", "": "invalid"} {
		n, err := ParseItemStock(in)
		got := StockText(n)
		if err != nil {
			got = ErrorCode(err)
		}
		if got != want {
			t.Errorf("ParseItemStock(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestErrSoldOut(t *testing.T) {
	err := ErrSoldOut("Popcorn", 0, 1)
	if ErrorCode(err) != EConflict || ErrorMessage(err) != "Popcorn: 0 left; 1 asked." {
		t.Fatalf("%v", err)
	}
}

func TestStockDetail(t *testing.T) {
	n50, n47 := 50, 47
	for _, c := range []struct {
		was, now *int
		want     string
	}{
		{&n50, &n47, "popcorn 50 -> 47 (-3): split"},
		{&n47, &n50, "popcorn 47 -> 50 (+3): split"},
		{nil, &n50, "popcorn unlimited -> 50: split"},
	} {
		if got := StockDetail("popcorn", c.was, c.now, "split"); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

func TestNormalizeOrderNumber(t *testing.T) {
	n := NewOrderNumber()
	for _, typed := range []string{n, strings.ToLower(n), strings.TrimPrefix(n, "IT-"), " it " + n[3:]} {
		if got := NormalizeOrderNumber(typed); got != n {
			t.Errorf("%q -> %q, want %q", typed, got, n)
		}
	}
}
