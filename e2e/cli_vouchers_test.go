package e2e

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"boxoffice/internal/clitest"
)

// A single-use voucher offered by 24 customers at 24 counters at once,
// each its own process on the one file: one sale redeems it, 23 are
// refused with exit code 3 and leave no seat held and nothing sold; two
// cancels of that booking at once: one cancels, the other is refused,
// and one use is left.
func TestCLI_VoucherTwentyFourProcesses(t *testing.T) {
	t.Parallel()
	bin := clitest.Binary(t)
	data := t.TempDir()
	show := firstShowID(t, data)
	if code, _, errOut := runCLI(t, data, "", "voucher", "add", "once", "--off", "2.50"); code != 0 {
		t.Fatalf("voucher add: %s", errOut)
	}
	run := func(args ...string) (int, string) {
		out, err := exec.Command(bin, append([]string{"--data", data}, args...)...).CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), string(out)
		} else if err != nil {
			return -1, err.Error()
		}
		return 0, string(out)
	}
	codes := make([]int, 24)
	outs := make([]string, 24)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			codes[i], outs[i] = run("sell", show, fmt.Sprintf("%c%d", 'B'+i/6, 2+i%6), "--pay", "card", "--voucher", "ONCE", "--allow-single", "--json")
		})
	}
	wg.Wait()
	var number string
	refused := 0
	for i, code := range codes {
		switch {
		case code == 0:
			var b struct {
				Number  string `json:"booking"`
				Voucher struct {
					Discount string `json:"discount"`
				} `json:"voucher"`
			}
			if err := json.Unmarshal([]byte(outs[i]), &b); err != nil || number != "" || b.Voucher.Discount != "2.50" {
				t.Fatalf("sale %d: %v %s (one before: %q)", i, err, outs[i], number)
			}
			number = b.Number
		case code == 3 && strings.Contains(outs[i], "Voucher ONCE is used up."):
			refused++
		default:
			t.Errorf("process %d: exit %d\n%s", i, code, outs[i])
		}
	}
	if number == "" || refused != 23 {
		t.Fatalf("one redeemed (%q) and %d refused; want 23", number, refused)
	}
	if live, bookings := liveClaims(t, data); live != 1 || bookings != 1 {
		t.Fatalf("%d seats held or sold and %d bookings: the refused sales left something", live, bookings)
	}
	for i := range 2 {
		wg.Go(func() { codes[i], outs[i] = run("cancel", number, "--reason", "twice") })
	}
	wg.Wait()
	if codes[0]+codes[1] != 3 || !strings.Contains(outs[0]+outs[1], "already cancelled") {
		t.Fatalf("two cancels: exit %d and %d\n%s\n%s", codes[0], codes[1], outs[0], outs[1])
	}
	_, out, _ := runCLI(t, data, "", "voucher", "list", "--json")
	var list []struct {
		Code     string `json:"code"`
		UsesLeft int    `json:"uses_left"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Code != "ONCE" || list[0].UsesLeft != 1 {
		t.Fatalf("voucher list after two cancels: %v %s", err, out)
	}
	if code, out, errOut := runCLI(t, data, "", "check"); code != 0 {
		t.Fatalf("check: %s %s", out, errOut)
	}
}

// sell with a voucher and items: the booking, the takings report and the
// report of redemptions agree; a sold-out item refuses the whole sale
// (exit 3) and the voucher keeps its use.
func TestCLI_SellVoucherAndItems(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	for _, args := range [][]string{
		{"voucher", "add", "tenpc", "--percent", "10", "--uses", "2"},
		{"item", "add", "popcorn", "Popcorn", "4.50", "--stock", "3", "--category", "snacks"},
	} {
		if code, _, errOut := runCLI(t, data, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
	}
	code, _, errOut := runCLI(t, data, "", "sell", show, "C3", "C4", "--voucher", "TENPC", "--item", "popcorn:4")
	if code != 3 || !strings.Contains(errOut, "Popcorn: 3 left; 4 asked.") {
		t.Fatalf("four popcorns of three: exit %d %s", code, errOut)
	}
	code, out, errOut := runCLI(t, data, "", "sell", show, "C3", "C4", "--voucher", "TENPC", "--item", "popcorn:2", "--tendered", "40")
	if code != 0 {
		t.Fatalf("sell: %s", errOut)
	}
	// Two adults at 12.50 less 10 %: 22.50; two popcorns 9.00; 40.00
	// handed over: 8.50 back.
	for _, want := range []string{"Total    22.50", "Voucher  TENPC: 2.50 off the tickets", "popcorn  Popcorn               2 x    4.50     9.00",
		"Items paid 17.50 cash, change due 8.50", "11.25"} {
		if !strings.Contains(out, want) {
			t.Errorf("sell printed no %q:\n%s", want, out)
		}
	}
	_, out, _ = runCLI(t, data, "", "report", "takings", "--json")
	var tk struct {
		Total        map[string]any `json:"total"`
		NetWithItems string         `json:"net_with_items"`
	}
	if err := json.Unmarshal([]byte(out), &tk); err != nil || tk.Total["net"] != "22.50" || tk.NetWithItems != "31.50" {
		t.Fatalf("takings: %v %s", err, out)
	}
	_, out, _ = runCLI(t, data, "", "report", "vouchers", "--csv")
	if !strings.Contains(out, "TENPC") || !strings.Contains(out, "total,,,,2.50,1 redeemed") {
		t.Fatalf("report vouchers:\n%s", out)
	}
	_, out, _ = runCLI(t, data, "", "report", "shift", "1", "--json")
	var x map[string]any
	if err := json.Unmarshal([]byte(out), &x); err != nil || x["cash_sales"] != "31.50" || x["expected"] != "131.50" {
		t.Fatalf("X report: %v %s", err, out)
	}
	_, out, _ = runCLI(t, data, "", "voucher", "list")
	if !strings.Contains(out, "1 of 2") {
		t.Fatalf("voucher list:\n%s", out)
	}
}

// liveClaims counts the seats held or sold and the bookings, read
// straight from the database file.
func liveClaims(t *testing.T, data string) (live, bookings int) {
	t.Helper()
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	if err := dbh.QueryRow(`SELECT (SELECT count(*) FROM seat_claims WHERE status IN ('held', 'sold')), (SELECT count(*) FROM bookings)`).Scan(&live, &bookings); err != nil {
		t.Fatal(err)
	}
	return live, bookings
}
