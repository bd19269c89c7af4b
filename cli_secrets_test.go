package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A PostgreSQL address's password is never printed back: five spellings
// of an address with one (keyword/value, an upper-case scheme, a leading
// space, a slash short, a proper URL), and one with it in the query, in
// --db, in BOXOFFICE_DB and in migrate --to, each on a port nothing
// listens on so the command fails at once. Neither stdout nor stderr
// nor any file the commands leave in the data dir (the log) holds it.
func TestCLI_DBPasswordNeverShown(t *testing.T) {
	const pw = "Sekr1tPw"
	addresses := []string{
		"host=127.0.0.1 port=1 user=ann password=" + pw + " dbname=cinema",
		"POSTGRES://ann:" + pw + "@127.0.0.1:1/cinema",
		" postgres://ann:" + pw + "@127.0.0.1:1/cinema",
		"postgres:/ann:" + pw + "@127.0.0.1:1/cinema",
		"postgres://ann:" + pw + "@127.0.0.1:1/cinema",
		"postgres://ann@127.0.0.1:1/cinema?sslmode=disable&password=" + pw,
		"postgres://ann:" + pw + "@127.0.0.1:port/cinema",
	}
	data := filepath.Join(t.TempDir(), "data")
	mustRun(t, data, "shows") // a SQLite cinema for migrate to copy
	said := func(what string, code int, out, errOut string) {
		t.Helper()
		if code == 0 {
			t.Errorf("%s succeeded", what)
		}
		if strings.Contains(out+errOut, pw) {
			t.Errorf("%s printed the password: %q %q", what, out, errOut)
		}
		if errOut == "" {
			t.Errorf("%s failed without a word", what)
		}
	}
	for _, a := range addresses {
		for _, args := range [][]string{{"--db", a, "shows"}, {"--db", a, "check"}, {"--db", a, "serve", "--listen", "127.0.0.1:0"}, {"migrate", "--to", a}} {
			code, out, errOut := runCLI(t, data, "", args...)
			said(strings.Join(args, " "), code, out, errOut)
		}
		t.Setenv("BOXOFFICE_DB", a)
		code, out, errOut := runCLI(t, data, "", "shows")
		said("BOXOFFICE_DB="+a+" shows", code, out, errOut)
		os.Unsetenv("BOXOFFICE_DB")
	}
	files, _ := os.ReadDir(data)
	for _, f := range files {
		if raw, err := os.ReadFile(filepath.Join(data, f.Name())); err == nil && strings.Contains(string(raw), pw) {
			t.Errorf("%s holds the password", f.Name())
		}
	}
}
