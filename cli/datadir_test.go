package cli

import (
	"context"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
)

func TestResolveDataDir(t *testing.T) {
	t.Setenv("HOME", "/home/ann")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("BOXOFFICE_DATA", "")
	steps := []struct {
		env, val string
		flag     string
		want     string
	}{
		{"", "", "", "/home/ann/.local/share/boxoffice"},
		{"XDG_DATA_HOME", "/xdg", "", "/xdg/boxoffice"},
		{"BOXOFFICE_DATA", "/env", "", "/env"},
		{"", "", "/flag", "/flag"},
	}
	for _, s := range steps {
		if s.env != "" {
			t.Setenv(s.env, s.val)
		}
		got, err := resolveDataDir(s.flag)
		if err != nil || string(got) != s.want {
			t.Errorf("with %s=%s and --data %q: %q %v, want %q", s.env, s.val, s.flag, got, err, s.want)
		}
	}
}

func TestDataDir_Ensure(t *testing.T) {
	t.Parallel()
	d := dataDir(filepath.Join(t.TempDir(), "a", "data"))
	if err := d.ensure(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(string(d)); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v %v, want 0700", info.Mode(), err)
	}
	file := dataDir(filepath.Join(t.TempDir(), "file"))
	os.WriteFile(string(file), nil, 0o600)
	if err := file.ensure(); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a file as the data dir: %v", err)
	}
}

func TestDataDir_TicketKeys(t *testing.T) {
	t.Parallel()
	t.Run("CreatedOnce", func(t *testing.T) {
		d := dataDir(t.TempDir())
		// Two processes starting at once on a new dir agree on one key.
		keys := make([]booking.TicketKey, 8)
		var wg sync.WaitGroup
		for i := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k, old, err := d.ticketKeys()
				if err != nil || len(old) != 0 {
					t.Errorf("ticket keys: %v, %d old", err, len(old))
				}
				keys[i] = k
			}()
		}
		wg.Wait()
		for _, k := range keys[1:] {
			if k.ID != 1 || len(k.Secret) != 32 || hex.EncodeToString(k.Secret) != hex.EncodeToString(keys[0].Secret) {
				t.Fatalf("keys differ: %d %x and %d %x", k.ID, k.Secret, keys[0].ID, keys[0].Secret)
			}
		}
		if info, err := os.Stat(d.file(ticketKeyFile)); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("key file mode %v %v, want 0600", info.Mode(), err)
		}
		again, _, _ := d.ticketKeys()
		if hex.EncodeToString(again.Secret) != hex.EncodeToString(keys[0].Secret) {
			t.Fatal("a second start made a new key")
		}
	})
	t.Run("Rotated", func(t *testing.T) {
		d := dataDir(t.TempDir())
		os.WriteFile(d.file(ticketKeyFile), []byte("# rotated in December\n\n2:"+strings.Repeat("cd", 16)+"\n1:"+strings.Repeat("ab", 32)+"\n"), 0o600)
		cur, old, err := d.ticketKeys()
		if err != nil || cur.ID != 2 || len(cur.Secret) != 16 || len(old) != 1 || old[0].ID != 1 {
			t.Fatalf("current %d, old %v, %v", cur.ID, old, err)
		}
	})
	t.Run("Err", func(t *testing.T) {
		for text, want := range map[string]string{
			"garbage\n":                               "line 1 is not a key (it has no colon)",
			"# none\n\n":                              "holds no key",
			"1:" + strings.Repeat("ab", 15):           "line 1 is not a key (its secret is 15 bytes, and a key needs at least 16)",
			"\n1:" + strings.Repeat("zz", 16):         "line 2 is not a key (what comes after the colon is not hexadecimal)",
			"x:" + strings.Repeat("ab", 16):           "line 1 is not a key (what comes before the colon is not a key number)",
			"99999999999:" + strings.Repeat("ab", 16): "line 1 is not a key",
		} {
			d := dataDir(t.TempDir())
			os.WriteFile(d.file(ticketKeyFile), []byte(text), 0o600)
			_, _, err := d.ticketKeys()
			msg := booking.ErrorMessage(err)
			if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(msg, want) || !strings.Contains(msg, d.file(ticketKeyFile)) || !strings.Contains(msg, "ID:HEXSECRET") {
				t.Errorf("%q: %v, want %q", text, err, want)
			}
			if strings.Contains(msg, "zz") || strings.Contains(msg, "abab") {
				t.Errorf("%q: the message repeats the file: %s", text, msg)
			}
		}
	})
}

// TestRun_BadTicketKey: a command on a data dir whose ticket_key is
// damaged says what is wrong with the file and where, never "Internal
// error.", and exits 2 having opened nothing.
func TestRun_BadTicketKey(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ticketKeyFile), []byte("1:"+strings.Repeat("ab", 8)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := runArgs(t, "", "--data", dir, "shows")
	want := "boxoffice: The ticket key file " + filepath.Join(dir, ticketKeyFile) + " is damaged: line 1 is not a key (its secret is 8 bytes, and a key needs at least 16)."
	if booking.ErrorCode(err) != booking.EInvalid || !strings.HasPrefix(errOut, want) || strings.Contains(errOut, "Internal error") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("a damaged key file: %v\n%s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, dbFile)); err == nil {
		t.Error("a database was made beside a damaged key file")
	}
}

func testOptions(now time.Time, noDemo bool) dataOptions {
	return dataOptions{sync: "normal", noDemo: noDemo, now: func() time.Time { return now }, logger: slog.New(slog.DiscardHandler)}
}

func TestDataDir_Open(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 17, 0, 0, 0, time.Local)
	t.Run("Demo", func(t *testing.T) {
		d := dataDir(filepath.Join(t.TempDir(), "data"))
		o, err := d.open(ctx, testOptions(now, false))
		if err != nil || !o.seeded || !o.demo {
			t.Fatalf("first open: %+v %v", o, err)
		}
		if h := o.demoHint(ctx); h.Name != assets.DemoUser || h.PIN != assets.DemoPIN {
			t.Errorf("demo hint %+v", h)
		}
		if err := o.store.SetPIN(ctx, booking.System, assets.DemoUser, "9753"); err != nil {
			t.Fatal(err)
		}
		if h := o.demoHint(ctx); h.Name != "" {
			t.Errorf("the hint stays after the PIN changed: %+v", h)
		}
		o.store.Close()
		for _, f := range []string{dbFile, ticketKeyFile} {
			if info, err := os.Stat(d.file(f)); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v %v, want 0600", f, info.Mode(), err)
			}
		}
		// Ten days on, a second open adds nothing but the week ahead.
		later := now.AddDate(0, 0, 10)
		o, err = d.open(ctx, testOptions(later, false))
		if err != nil || o.seeded || !o.demo {
			t.Fatalf("second open: %+v %v", o, err)
		}
		defer o.store.Close()
		shows, err := o.store.Shows(ctx, booking.System, later.AddDate(0, 0, 3))
		if err != nil || len(shows) == 0 {
			t.Fatalf("no demo shows a week ahead of a later open: %d %v", len(shows), err)
		}
	})
	t.Run("NoDemo", func(t *testing.T) {
		d := dataDir(t.TempDir())
		o, err := d.open(ctx, testOptions(now, true))
		if err != nil || !o.seeded || o.demo {
			t.Fatalf("open --no-demo: %+v %v", o, err)
		}
		defer o.store.Close()
		if halls, _ := o.store.Halls(ctx, booking.System); len(halls) != 0 {
			t.Errorf("an empty cinema has %d halls", len(halls))
		}
		if h := o.demoHint(ctx); h.Name != "" {
			t.Errorf("a hint in a cinema of its own: %+v", h)
		}
	})
	t.Run("Racing", func(t *testing.T) {
		// Several commands opening a new data dir at once: one seeds the
		// demo, the others find it there. The file is migrated first:
		// opening a brand-new file from several processes at once is
		// db.Open's race, not this one.
		d := dataDir(t.TempDir())
		key, _, err := d.ticketKeys()
		if err != nil {
			t.Fatal(err)
		}
		st, err := db.Open(d.dbPath(), db.Options{TicketKey: key, SweepInterval: -1, PollInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		var mu sync.Mutex
		seeded := 0
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o, err := d.open(ctx, testOptions(now, false))
				if err != nil {
					t.Errorf("open: %v", err)
					return
				}
				defer o.store.Close()
				mu.Lock()
				defer mu.Unlock()
				if o.seeded {
					seeded++
				}
				if !o.demo {
					t.Error("not the demo cinema")
				}
			}()
		}
		wg.Wait()
		if seeded != 1 {
			t.Fatalf("%d opens seeded the demo, want 1", seeded)
		}
	})
}
