package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/internal/clitest"
)

// writes counts what a sale writes: holds, seat claims, bookings and
// payments, read straight from the database file.
func writes(t *testing.T, data string) [4]int {
	t.Helper()
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	var n [4]int
	for i, table := range []string{"holds", "seat_claims", "bookings", "payments"} {
		if err := dbh.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n[i]); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// Invalid input to `sell` exits 2 before anything is written: no hold, no
// claim (the seat never flickers as held at other counters), no booking.
func TestCLI_SellRefusesBeforeWriting(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	for name, args := range map[string][]string{
		"UnknownType":  {"sell", show, "D2", "--type", "vip"},
		"UnknownBest":  {"sell", show, "--best", "2", "--type", "vip"},
		"LongKey":      {"sell", show, "D2", "--key", strings.Repeat("k", 129)},
		"ShortCash":    {"sell", show, "D2", "D3", "--tendered", "20"},
		"ShortBest":    {"sell", show, "--best", "3", "--tendered", "30"},
		"MinusInside":  {"sell", show, "D2", "--tendered", "100.-5"},
		"Negative":     {"sell", show, "D2", "--tendered", "-0.50"},
		"Exponent":     {"sell", show, "D2", "--tendered", "1e3"},
		"ThreeDecimal": {"sell", show, "D2", "--tendered", "12.505"},
		"Thousands":    {"sell", show, "D2", "--tendered", "1,000"},
		"Plus":         {"sell", show, "D2", "--tendered", "+30"},
		"Blank":        {"sell", show, "D2", "--tendered", " "},
		"SingleBest":   {"sell", show, "--best", "2", "--allow-single"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := runCLI(t, data, "", args...)
			if code != 2 || errOut == "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if n := writes(t, data); n != [4]int{} {
				t.Fatalf("holds, claims, bookings, payments written: %v\n%s", n, errOut)
			}
		})
	}
	// D2 alone would leave D1 single against the wall: refused with exit
	// 3, naming the sale that leaves none and the override, nothing held.
	t.Run("SingleSeat", func(t *testing.T) {
		code, _, errOut := runCLI(t, data, "", "sell", show, "D2")
		if code != exitConflict || !strings.Contains(errOut, "D1 would be left as a single seat. Sell D1 D2, or add --allow-single") {
			t.Fatalf("exit %d: %q", code, errOut)
		}
		if n := writes(t, data); n != [4]int{} {
			t.Fatalf("holds, claims, bookings, payments written: %v", n)
		}
	})
	t.Run("Messages", func(t *testing.T) {
		_, _, errOut := runCLI(t, data, "", "sell", show, "D2", "--type", "vip")
		if !strings.Contains(errOut, `unknown ticket type "vip" (adult, child, senior, student)`) {
			t.Fatalf("unknown type: %q", errOut)
		}
		_, _, errOut = runCLI(t, data, "", "sell", show, "D2", "D3", "--tendered", "20")
		if !strings.Contains(errOut, "20.00 tendered is less than the total 25.00") {
			t.Fatalf("short cash: %q", errOut)
		}
	})
	t.Run("OKAfterwards", func(t *testing.T) {
		code, out, errOut := runCLI(t, data, "", "sell", show, "D2", "--tendered", "12,50", "--allow-single")
		if code != 0 || !strings.Contains(out, "Paid     12.50 cash, change due 0.00") {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
	})
}

// `price set` takes the same strict amounts.
func TestCLI_PriceSetRefusesBadAmounts(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	firstShowID(t, data)
	for _, amount := range []string{"13.005", "1e2", "12.-5", "+3", "1,000"} {
		if code, _, errOut := runCLI(t, data, "", "price", "set", "adult", "Adult", amount); code != 2 || !strings.Contains(errOut, "not an amount") {
			t.Errorf("price set %s: exit %d, %q", amount, code, errOut)
		}
	}
	if code, out, _ := runCLI(t, data, "", "price", "set", "adult", "Adult", "13"); code != 0 || !strings.Contains(out, "now costs 13.00") {
		t.Fatalf("price set 13: %d %q", code, out)
	}
}

// The local counter takes --idle-signout like serve; a negative one is a
// usage mistake, refused before the terminal is touched.
func TestCLI_CounterIdleSignOutFlag(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	code, _, errOut := runCLI(t, data, "", "--idle-signout", "-1m")
	if code != 2 || !strings.Contains(errOut, "--idle-signout must not be negative") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
}

// Must show 2 on the command line: a premium seat sells at the premium
// price, a show on the evening list at the evening price, each ticket
// says where its price came from and the total is the sum of the tickets.
func TestCLI_SellPremiumAndEvening(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	firstShowID(t, data)
	if code, _, errOut := runCLI(t, data, "", "price", "set", "adult", "--list", "evening", "--seat", "premium", "17.00"); code != 0 {
		t.Fatalf("price set: %s", errOut)
	}
	grand := grandShowID(t, data)
	sell := func(args ...string) bookingOut {
		t.Helper()
		code, out, errOut := runCLI(t, data, "", append([]string{"sell", grand, "--pay", "card", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("sell %v: exit %d %s", args, code, errOut)
		}
		var b bookingOut
		if err := json.Unmarshal([]byte(out), &b); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var sum booking.Money
		for _, tk := range b.Tickets {
			p, err := booking.ParseMoney(tk.Price)
			if err != nil {
				t.Fatal(err)
			}
			sum += p
		}
		if sum.String() != b.Total {
			t.Fatalf("tickets add to %s, total %s", sum, b.Total)
		}
		return b
	}
	b := sell("N10", "A10")
	want := map[string][2]string{"N10": {"15.00", "premium seat"}, "A10": {"12.50", ""}}
	for _, tk := range b.Tickets {
		if w := want[tk.Seat]; tk.Price != w[0] || tk.PriceSource != w[1] {
			t.Errorf("%s sold at %s (%q), want %v", tk.Seat, tk.Price, tk.PriceSource, w)
		}
	}
	if code, _, errOut := runCLI(t, data, "", "show", "price-list", grand, "evening"); code != 0 {
		t.Fatalf("show price-list: %s", errOut)
	}
	b = sell("N11", "A11")
	want = map[string][2]string{"N11": {"17.00", "evening list · premium seat"}, "A11": {"14.00", "evening list"}}
	for _, tk := range b.Tickets {
		if w := want[tk.Seat]; tk.Price != w[0] || tk.PriceSource != w[1] {
			t.Errorf("%s sold at %s (%q), want %v", tk.Seat, tk.Price, tk.PriceSource, w)
		}
	}
	if b.Total != "31.00" {
		t.Fatalf("evening total %s", b.Total)
	}
	// --best keeps a party out of premium seats unless asked.
	for _, tk := range sell("--best", "3").Tickets {
		if tk.PriceSource != "evening list" {
			t.Errorf("--best sold %s as %q", tk.Seat, tk.PriceSource)
		}
	}
	for _, tk := range sell("--best", "3", "--premium").Tickets {
		if tk.PriceSource != "evening list · premium seat" {
			t.Errorf("--best --premium sold %s as %q", tk.Seat, tk.PriceSource)
		}
	}
}

type bookingOut struct {
	Total   string `json:"total"`
	Tickets []struct {
		Seat        string `json:"seat"`
		Price       string `json:"price"`
		PriceSource string `json:"price_source"`
	} `json:"tickets"`
}

// grandShowID is the id of tomorrow's first show in the Grand hall.
func grandShowID(t *testing.T, data string) string {
	t.Helper()
	return clitest.GrandShowID(t, inProcess, data)
}
