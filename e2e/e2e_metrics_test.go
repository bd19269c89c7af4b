package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkSaleCounted is must show 6, called by TestE2E_ServeOverRealSSH
// once its clerk has sold one seat over a real SSH connection to the
// shipped binary serving --metrics on loopback: /metrics counts the sale
// and the clerk's open session.
func checkSaleCounted(t *testing.T, url string) {
	t.Helper()
	m := getMetrics(t, url)
	for _, want := range []string{"\nboxoffice_sales_total 1\n", "\nboxoffice_seats_sold_total 1\n", "\nboxoffice_holds_total 1\n", "\nboxoffice_sessions{role=\"clerk\"} 1\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("no %q in the metrics:\n%s", strings.TrimSpace(want), m)
		}
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
	t.Parallel()
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
