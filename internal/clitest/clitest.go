// Package clitest drives the boxoffice command line for the tests of the
// root package (in process, under the race detector) and of e2e (the
// built binary, in processes, terminals and over SSH): the binary built
// once per test process, the habits every scenario starts with (a shift
// open after init, tomorrow's shows) and the --json answers they read.
package clitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// builds are the programs Binary and Helper built, once per test process
// each, into one directory that RemoveBinary removes.
var builds struct {
	mu     sync.Mutex
	dir    string
	dirErr error
	byPk   map[string]*build
}

// build is one program built: its path, or the build's error and output.
type build struct {
	once sync.Once
	bin  string
	err  error
	out  []byte
}

// Binary builds the boxoffice binary the way it ships (no cgo), once per
// test process, and returns its path; every test that runs the binary
// shares it. It must not be written to. The package's TestMain calls
// RemoveBinary when its tests are done.
func Binary(t testing.TB) string {
	t.Helper()
	return buildOnce(t, "boxoffice", "boxoffice")
}

// Helper builds the test's helper program in the main package pkg (a
// directory under internal/clitest, e.g. "killrestore") as Binary builds
// boxoffice: without the race detector, once per test process, after
// Binary, so it reuses what Binary compiled and only links.
func Helper(t testing.TB, pkg string) string {
	t.Helper()
	Binary(t)
	return buildOnce(t, "boxoffice/internal/clitest/"+pkg, pkg)
}

// buildOnce builds the main package pkg into name in the builds' directory
// the first time it is asked for, and returns its path.
func buildOnce(t testing.TB, pkg, name string) string {
	t.Helper()
	builds.mu.Lock()
	if builds.byPk == nil {
		builds.byPk = map[string]*build{}
	}
	b := builds.byPk[pkg]
	if b == nil {
		b = &build{}
		builds.byPk[pkg] = b
	}
	if builds.dir == "" && builds.dirErr == nil {
		builds.dir, builds.dirErr = os.MkdirTemp("", "boxoffice-bin-")
	}
	dir, err := builds.dir, builds.dirErr
	builds.mu.Unlock()
	if err != nil {
		t.Fatalf("build %s: %v", pkg, err)
	}
	b.once.Do(func() {
		b.bin = filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", b.bin, pkg)
		cmd.Dir = ModuleRoot()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, b.err, b.out)
	}
	return b.bin
}

// RemoveBinary removes the directory Binary and Helper built into, if
// they did.
func RemoveBinary() {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
}

// ModuleRoot is the directory of the module's go.mod: the tests of any
// package read the shipped assets from there.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Runner runs one command line on the data dir data, with stdin, and
// returns its exit code, stdout and stderr: in process (the root
// package) or the built binary (Exec).
type Runner func(data, stdin string, args ...string) (int, string, string)

// Exec is the Runner that runs the binary bin as a person at a shell
// does.
func Exec(bin string) Runner {
	return func(data, stdin string, args ...string) (int, string, string) {
		return Command(bin, nil, stdin, append([]string{"--data", data}, args...)...)
	}
}

// Command runs the binary bin with args, stdin and the test process's
// environment plus env, and returns its exit code, stdout and stderr.
func Command(bin string, env []string, stdin string, args ...string) (int, string, string) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errb.String()
	case err != nil:
		return -1, out.String(), err.Error()
	}
	return 0, out.String(), errb.String()
}

// Run runs args with r and, after an init that succeeds, opens the
// command line's shift (OpenShift), as the box office does before its
// first cash sale.
func Run(t testing.TB, r Runner, data, stdin string, args ...string) (int, string, string) {
	t.Helper()
	code, out, errOut := r(data, stdin, args...)
	if code == 0 && len(args) > 0 && args[0] == "init" {
		OpenShift(t, r, data)
	}
	return code, out, errOut
}

// OpenShift opens the command line's shift with a float of 100.00 unless
// one is open (exit 3), so the tests that sell cash find a drawer.
func OpenShift(t testing.TB, r Runner, data string) {
	t.Helper()
	if code, _, errOut := r(data, "", "shift", "open", "--float", "100"); code != 0 && code != 3 {
		t.Fatalf("shift open: %s", errOut)
	}
}

// FirstShowID returns the id of a show that is still on sale tomorrow,
// making the demo cinema in data if it is not there yet, with the
// command line's shift open.
func FirstShowID(t testing.TB, r Runner, data string) string {
	t.Helper()
	return strconv.FormatInt(tomorrowShows(t, r, data)[0].ID, 10)
}

// GrandShowID is the id of tomorrow's first show in the Grand hall.
func GrandShowID(t testing.TB, r Runner, data string) string {
	t.Helper()
	return ShowIn(t, r, data, "Grand")
}

// ShowIn is the id of tomorrow's first show in the hall named hall: a
// test that sells a show out picks the demo's smallest, the Studio.
func ShowIn(t testing.TB, r Runner, data, hall string) string {
	t.Helper()
	for _, sh := range tomorrowShows(t, r, data) {
		if sh.Hall == hall {
			return strconv.FormatInt(sh.ID, 10)
		}
	}
	t.Fatalf("no %s show tomorrow", hall)
	return ""
}

// tomorrowShows lists tomorrow's shows (at least one) and opens the
// command line's shift.
func tomorrowShows(t testing.TB, r Runner, data string) []Show {
	t.Helper()
	tomorrow := time.Now().AddDate(0, 0, 1).Format("2006-01-02")
	code, out, errOut := r(data, "", "shows", "--date", tomorrow, "--json")
	if code != 0 {
		t.Fatalf("shows: %d %s", code, errOut)
	}
	var shows []Show
	if err := json.Unmarshal([]byte(out), &shows); err != nil || len(shows) == 0 {
		t.Fatalf("shows json: %v %q", err, out)
	}
	OpenShift(t, r, data)
	return shows
}

// StudioAt writes the demo's Studio layout under another hall name and
// returns its file.
func StudioAt(t testing.TB, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ModuleRoot(), "assets", "halls", "3-studio.hall"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "north.hall")
	if err := os.WriteFile(path, []byte(strings.Replace(string(raw), "hall: Studio", "hall: "+name, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// SyncBuffer is a bytes.Buffer a process writes to while the test reads.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
