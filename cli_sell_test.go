package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
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
		code, out, errOut := runCLI(t, data, "", "sell", show, "D2", "--tendered", "12,50")
		if code != 0 || !strings.Contains(out, "Paid     12.50 cash, change due 0.00") {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
	})
}

// `price set` takes the same strict amounts.
func TestCLI_PriceSetRefusesBadAmounts(t *testing.T) {
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
	data := t.TempDir()
	code, _, errOut := runCLI(t, data, "", "--idle-signout", "-1m")
	if code != 2 || !strings.Contains(errOut, "--idle-signout must not be negative") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
}
