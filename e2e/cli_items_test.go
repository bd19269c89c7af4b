package e2e

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"boxoffice/internal/clitest"
)

// 50 popcorns and 80 customers at 80 counters at once, each its own
// process on the one file: 50 sold, 30 refused with exit code 3 naming
// what is left, the stock 0, and the drawer holding the 50 sales.
func TestCLI_ItemSellEightyProcesses(t *testing.T) {
	t.Parallel()
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	if code, _, errOut := runCLI(t, data, "", "init", "--no-demo"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "item", "add", "popcorn", "Popcorn", "4.50", "--stock", "50", "--category", "snacks"); code != 0 {
		t.Fatalf("item add: %s", errOut)
	}
	codes := make([]int, 80)
	outs := make([]string, 80)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			out, err := exec.Command(bin, "--data", data, "item", "sell", "popcorn:1").CombinedOutput()
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				codes[i] = exit.ExitCode()
			} else if err != nil {
				codes[i] = -1
			}
			outs[i] = string(out)
		})
	}
	wg.Wait()
	sold, refused := 0, 0
	for i, code := range codes {
		switch {
		case code == 0 && strings.Contains(outs[i], "Paid     4.50 cash"):
			sold++
		case code == 3 && strings.Contains(outs[i], "Popcorn: 0 left; 1 asked."):
			refused++
		default:
			t.Errorf("process %d: exit %d\n%s", i, code, outs[i])
		}
	}
	if sold != 50 || refused != 30 {
		t.Fatalf("%d sold, %d refused; want 50 and 30", sold, refused)
	}
	_, out, _ := runCLI(t, data, "", "item", "list", "--json")
	var items []struct {
		Code  string `json:"code"`
		Stock *int   `json:"stock"`
	}
	if err := json.Unmarshal([]byte(out), &items); err != nil || len(items) != 1 || items[0].Stock == nil || *items[0].Stock != 0 {
		t.Fatalf("item list: %v %s", err, out)
	}
	_, out, _ = runCLI(t, data, "", "report", "shift", "1", "--json")
	var x map[string]any
	if err := json.Unmarshal([]byte(out), &x); err != nil || x["cash_sales"] != "225.00" || x["expected"] != "325.00" ||
		x["items_snacks"] != "50 sold, 225.00" || x["low_stock"] != "popcorn 0" {
		t.Fatalf("X report: %v %s", err, out)
	}
	if code, out, errOut := runCLI(t, data, "", "check"); code != 0 {
		t.Fatalf("check: %s %s", out, errOut)
	}
}

// item's commands refuse what they can before the store opens (exit 2),
// and say the rest in the store's words.
func TestCLI_ItemRefusals(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	if code, _, errOut := runCLI(t, data, "", "init", "--no-demo"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	runCLI(t, data, "", "item", "add", "popcorn", "Popcorn", "4.50", "--stock", "5")
	for _, c := range []struct {
		code int
		args []string
		says string
	}{
		{2, []string{"item", "add", "pop corn", "Popcorn", "4.50"}, "An item's code is 1 to 16"},
		{2, []string{"item", "add", "nachos", "Nachos", "lots"}, "PRICE"},
		{2, []string{"item", "add", "nachos", "Nachos", "5", "--stock", "-3"}, "--stock"},
		{3, []string{"item", "add", "POPCORN", "Again", "5"}, "An item popcorn exists already."},
		{2, []string{"item", "sell"}, "usage"},
		{2, []string{"item", "sell", "popcorn:0"}, "how many is 1 to 99"},
		{2, []string{"item", "sell", "popcorn:2", "--pay", "card", "--tendered", "10"}, "--tendered is for cash"},
		{2, []string{"item", "sell", "popcorn:2", "--tendered", "5"}, "5.00 tendered is less than the total 9.00."},
		{4, []string{"item", "sell", "nachos"}, `No item "nachos".`},
		{3, []string{"item", "sell", "popcorn:6", "--pay", "card"}, "Popcorn: 5 left; 6 asked."},
		{2, []string{"item", "stock", "popcorn", "4"}, "Say why the stock changes"},
		{2, []string{"item", "restock", "popcorn", "0", "--reason", "x"}, "A restock adds 1 to"},
		{4, []string{"item", "refund", "IT-ZZZZZZZZ"}, "No order IT-ZZZZZZZZ."},
	} {
		code, out, errOut := runCLI(t, data, "", c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.says) {
			t.Errorf("%v: exit %d, want %d; %q %q (want %q)", c.args, code, c.code, out, errOut, c.says)
		}
	}
	_, out, _ := runCLI(t, data, "", "item", "list")
	if !strings.Contains(out, "popcorn  Popcorn  (none)    4.50   5 (low)") {
		t.Fatalf("item list after refusals:\n%s", out)
	}
}
