package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// passFile writes a passphrase file (0600) and returns its name.
func passFile(t *testing.T, pass string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(path, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ticketSale is a sale's number, its first ticket's code and its show's
// start.
type ticketSale struct {
	Number  string `json:"booking"`
	Start   string `json:"start"`
	Tickets []struct {
		Code string `json:"code"`
	} `json:"tickets"`
}

func sellTicket(t *testing.T, data, show string) ticketSale {
	t.Helper()
	var s ticketSale
	if err := json.Unmarshal([]byte(mustRun(t, data, "sell", show, "--best", "1", "--pay", "card", "--json")), &s); err != nil || len(s.Tickets) != 1 {
		t.Fatalf("sell: %v %+v", err, s)
	}
	return s
}

// atDoors sets the clock of the commands after it to an hour before the
// sale's show, when its doors are open.
func atDoors(t *testing.T, s ticketSale) {
	t.Helper()
	start, err := time.Parse(time.RFC3339, s.Start)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BOXOFFICE_NOW", start.Add(-time.Hour).Format(time.RFC3339))
}

// Must show (2): a ticket sold on one machine is admitted, once, on
// another restored from a backup made with the key; a wrong passphrase
// writes nothing; without the key the same ticket is unknown at the door.
func TestCLI_RestoreWithKeyElsewhere(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	sold := sellTicket(t, data, show)
	pass := passFile(t, "seven cinemas by the sea")
	backup := filepath.Join(t.TempDir(), "with-key.db")
	if out := mustRun(t, data, "backup", backup, "--with-key", "--passphrase-file", pass); !strings.Contains(out, "sealed in it") {
		t.Fatalf("backup --with-key said %q", out)
	}
	keyText, _ := os.ReadFile(filepath.Join(data, "ticket_key"))
	_, secret, _ := strings.Cut(strings.TrimSpace(string(keyText)), ":")
	raw, _ := os.ReadFile(backup)
	info, _ := os.Stat(backup)
	if bytes.Contains(bytes.ToLower(raw), []byte(secret)) || info.Mode().Perm() != 0o600 {
		t.Fatalf("the backup holds the key in the clear, or is %v", info.Mode())
	}

	elsewhere := filepath.Join(t.TempDir(), "new-machine", "data")
	code, _, errOut := runCLI(t, elsewhere, "", "restore", backup, "--passphrase-file", passFile(t, "not the passphrase"))
	if code != exitUsage || !strings.Contains(errOut, "The passphrase does not open the ticket keys") {
		t.Fatalf("a wrong passphrase: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(elsewhere); !os.IsNotExist(err) {
		t.Fatalf("a wrong passphrase wrote the data dir: %v", err)
	}
	out := mustRun(t, elsewhere, "restore", backup, "--passphrase-file", pass)
	if !strings.Contains(out, "Restored 1 booking") || !strings.Contains(out, "Added the ticket keys") {
		t.Fatalf("restore said %q", out)
	}
	if info, err := os.Stat(filepath.Join(elsewhere, "ticket_key")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the restored key file: %v %v", info, err)
	}
	atDoors(t, sold)
	code, out, errOut = runCLI(t, elsewhere, "", "admit", sold.Tickets[0].Code)
	if code != 0 || !strings.Contains(out, "Admit: seat ") || !strings.Contains(out, sold.Number) {
		t.Fatalf("the old ticket at the new machine's door: exit %d, %q %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, elsewhere, "", "admit", sold.Tickets[0].Code)
	if code != exitConflict || !strings.Contains(errOut, "was already admitted") {
		t.Fatalf("the same ticket again: exit %d, %q", code, errOut)
	}

	// Restored where the keys already are, it asks for nothing.
	if out := mustRun(t, data, "restore", backup); !strings.Contains(out, "already holds the ticket keys") {
		t.Fatalf("restore into the data dir it came from said %q", out)
	}

	// What the docs warn of: restored without the key, the ticket is unknown.
	keyless := filepath.Join(t.TempDir(), "keyless")
	if out := mustRun(t, keyless, "restore", backup, "--without-key"); !strings.Contains(out, "were left out") {
		t.Fatalf("restore --without-key said %q", out)
	}
	code, _, errOut = runCLI(t, keyless, "", "admit", sold.Tickets[0].Code)
	if code != exitNotFound || !strings.Contains(errOut, "Unknown ticket code.") {
		t.Fatalf("the old ticket without its key: exit %d, %q", code, errOut)
	}
}

// key export and key import: the keys move sealed; the importing data
// dir's own key still verifies the tickets it signed; a wrong passphrase
// changes nothing; an export never overwrites a file.
func TestCLI_KeyExportImport(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	firstShowID(t, data)
	pass := passFile(t, "seven cinemas by the sea")
	exported := filepath.Join(t.TempDir(), "keys.sealed")
	mustRun(t, data, "key", "export", exported, "--passphrase-file", pass)
	if info, err := os.Stat(exported); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the export: %v %v", info, err)
	}
	before, _ := os.ReadFile(exported)
	if code, _, errOut := runCLI(t, data, "", "key", "export", exported, "--passphrase-file", pass); code != exitInternal || !strings.Contains(errOut, "never overwrites") {
		t.Fatalf("an export over a file: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(exported); !bytes.Equal(before, after) {
		t.Fatal("an export over a file changed it")
	}

	// Another box office, with a ticket of its own signed by its own key.
	other := filepath.Join(t.TempDir(), "other")
	otherShow := firstShowID(t, other)
	own := sellTicket(t, other, otherShow)
	keyFile := filepath.Join(other, "ticket_key")
	keysBefore, _ := os.ReadFile(keyFile)
	code, _, errOut := runCLI(t, other, "", "key", "import", exported, "--passphrase-file", passFile(t, "not the passphrase"))
	if after, _ := os.ReadFile(keyFile); code != exitUsage || !strings.Contains(errOut, "does not open") || !bytes.Equal(after, keysBefore) {
		t.Fatalf("import with a wrong passphrase: exit %d, %q", code, errOut)
	}
	if out := mustRun(t, other, "key", "import", exported, "--passphrase-file", pass); !strings.Contains(out, "still verifies") {
		t.Fatalf("import said %q", out)
	}
	if out := mustRun(t, other, "key", "import", exported, "--passphrase-file", pass); !strings.Contains(out, "already holds") {
		t.Fatalf("a second import said %q", out)
	}
	// The imported key signs from now on; the other's own key is kept
	// below it and still verifies the ticket it signed.
	firstKey, _ := os.ReadFile(filepath.Join(data, "ticket_key"))
	if after, _ := os.ReadFile(keyFile); string(after) != string(firstKey)+string(keysBefore) {
		t.Fatalf("the key file after the import:\n%s\nwant\n%s%s", after, firstKey, keysBefore)
	}
	atDoors(t, own)
	if code, out, errOut := runCLI(t, other, "", "admit", own.Tickets[0].Code); code != 0 {
		t.Fatalf("the other box office's own ticket after the import: exit %d, %q %q", code, out, errOut)
	}
}
