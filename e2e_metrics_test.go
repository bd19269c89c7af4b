package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Must show 6: the shipped binary serves metrics on loopback; a clerk
// sells a seat over a real SSH connection, and /metrics counts the sale
// and the clerk's open session.
func TestE2E_MetricsCountASale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, tool := range []string{"ssh", "ssh-keygen", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install openssh-client tmux)", tool)
		}
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	key := filepath.Join(dir, "clerk")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	for _, args := range [][]string{{"init"}, {"staff", "add", "Maria", "--role", "clerk", "--key-file", key + ".pub"}} {
		cmd := exec.Command(bin, append([]string{"--data", data}, args...)...)
		cmd.Stdin = strings.NewReader("4321\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
	}
	port, metricsPort := freePort(t), freePort(t)
	serverOut := &syncBuffer{}
	srv := exec.Command(bin, "--data", data, "serve", "--listen", "127.0.0.1:"+port, "--metrics", "127.0.0.1:"+metricsPort)
	srv.Stdout, srv.Stderr = serverOut, serverOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(serverOut.String(), "Metrics on http://127.0.0.1:"+metricsPort+"/metrics"); {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", serverOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	url := "http://127.0.0.1:" + metricsPort + "/metrics"
	if m := getMetrics(t, url); !strings.Contains(m, "\nboxoffice_sales_total 0\n") {
		t.Fatalf("before the sale:\n%s", m)
	}

	tm := startTmux(t, 100, 30, "ssh", "-t", "-p", port, "-i", key,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "127.0.0.1")
	tm.waitFor("Maria (clerk)", "Grand")
	tm.send("Right")
	tm.waitFor("Tomorrow", "Grand")
	tm.send("Enter")
	tm.waitFor("SCREEN")
	tm.send("/")
	tm.send("C5", "Enter")
	tm.waitFor("Holding 1")
	tm.send("Enter")
	tm.waitFor("Tendered")
	tm.send("Enter", "Enter")
	tm.waitFor("Sold BO-")

	m := getMetrics(t, url)
	for _, want := range []string{"\nboxoffice_sales_total 1\n", "\nboxoffice_seats_sold_total 1\n", "\nboxoffice_holds_total 1\n", "\nboxoffice_sessions{role=\"clerk\"} 1\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("no %q in:\n%s", strings.TrimSpace(want), m)
		}
	}
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

func getMetrics(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// A metrics address other machines could reach is refused with exit 2
// before the data dir is touched, unless --metrics-public says so.
func TestCLI_ServeMetricsErrNotLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:" + freePort(t), ":" + freePort(t), "[::]:" + freePort(t)} {
		data := filepath.Join(t.TempDir(), "data")
		code, out, errOut := runCLI(t, data, "", "serve", "--listen", "127.0.0.1:0", "--metrics", addr)
		if code != exitUsage || !strings.Contains(errOut, "not a loopback address") || !strings.Contains(errOut, "--metrics-public") || out != "" {
			t.Errorf("serve --metrics %s: exit %d, stdout %q, stderr %q", addr, code, out, errOut)
		}
		if _, err := os.Stat(data); !os.IsNotExist(err) {
			t.Errorf("serve --metrics %s made the data dir (%v)", addr, err)
		}
	}
}
