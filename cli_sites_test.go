package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
	"boxoffice/internal/pgtest"
)

// On SQLite the cinema is one site: sites lists Main, site add refuses
// saying where a chain runs, and --site takes Main (or 1) and refuses any
// other name before anything is written.
func TestCLI_SitesOnSQLite(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	copyDemo(t, data)
	code, out, errOut := runCLI(t, data, "", "sites", "--json")
	var sites []map[string]any
	if err := json.Unmarshal([]byte(out), &sites); code != 0 || err != nil || len(sites) != 1 || sites[0]["id"] != 1.0 || sites[0]["name"] != "Main" {
		t.Fatalf("sites: exit %d %q %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, data, "", "site", "add", "North")
	if code == 0 || !strings.Contains(errOut, "one site; a chain of cinemas runs on PostgreSQL") {
		t.Fatalf("site add on SQLite: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, data, "", "report", "takings", "--site", "North")
	if code == 0 || !strings.Contains(errOut, `There is no site "North": this cinema is one site, Main.`) {
		t.Fatalf("--site North on SQLite: exit %d %q", code, errOut)
	}
	_, before, _ := runCLI(t, data, "", "hall", "list")
	code, _, errOut = runCLI(t, data, "", "--site", "North", "hall", "add", clitest.StudioAt(t, "Far Studio"))
	if _, after, _ := runCLI(t, data, "", "hall", "list"); code == 0 || after != before || !strings.Contains(errOut, "There is no site") {
		t.Fatalf("hall add --site North on SQLite: exit %d %q; halls before %q after %q", code, errOut, before, after)
	}
	for _, site := range []string{"Main", "main", "1"} {
		if code, _, errOut := runCLI(t, data, "", "report", "takings", "--site", site); code != 0 {
			t.Fatalf("--site %s: exit %d %s", site, code, errOut)
		}
	}
	if _, out, _ := runCLI(t, data, "", "hall", "list"); strings.Contains(out, "SITE") {
		t.Fatalf("a single cinema's halls show a site column: %q", out)
	}
}

// A chain on PostgreSQL from the command line: a second site, a hall and
// a show there, a sale in it, and the reports and lists of each site.
func TestCLI_SitesOnPostgres(t *testing.T) {
	data := t.TempDir()
	t.Setenv("BOXOFFICE_DB", pgtest.URL(t))
	if code, _, errOut := runCLI(t, data, "", "init"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	if code, out, errOut := runCLI(t, data, "", "site", "add", "North"); code != 0 || strings.TrimSpace(out) != "Added site 2: North." {
		t.Fatalf("site add: exit %d %q %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "site", "add", "north"); code == 0 || !strings.Contains(errOut, "There is already a site called north.") {
		t.Fatalf("site add twice: exit %d %q", code, errOut)
	}
	code, out, errOut := runCLI(t, data, "", "hall", "add", "--site", "North", clitest.StudioAt(t, "North Studio"))
	if code != 0 || !strings.Contains(out, "at North.") {
		t.Fatalf("hall add --site North: exit %d %q %s", code, out, errOut)
	}
	if _, out, _ := runCLI(t, data, "", "hall", "list"); !strings.Contains(out, "SITE") || !strings.Contains(out, "North Studio") {
		t.Fatalf("hall list of a chain: %q", out)
	}
	tomorrow := time.Now().AddDate(0, 0, 1)
	if code, out, errOut := runCLI(t, data, "", "show", "add", "--film", "1", "--hall", "North Studio", "--at", tomorrow.Format("2006-01-02")+" 23:30"); code != 0 {
		t.Fatalf("show add: exit %d %q %s", code, out, errOut)
	}
	shows := func(site string) map[string]string {
		t.Helper()
		args := []string{"shows", "--date", tomorrow.Format("2006-01-02"), "--json"}
		if site != "" {
			args = append(args, "--site", site)
		}
		code, out, errOut := runCLI(t, data, "", args...)
		if code != 0 {
			t.Fatalf("shows --site %s: %s", site, errOut)
		}
		var list []struct {
			ID   int64  `json:"id"`
			Hall string `json:"hall"`
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		halls := map[string]string{}
		for _, sh := range list {
			halls[sh.Hall] = strconv.FormatInt(sh.ID, 10)
		}
		return halls
	}
	north, main, all := shows("North"), shows("Main"), shows("")
	if len(north) != 1 || north["North Studio"] == "" || main["North Studio"] != "" || len(all) != len(main)+1 {
		t.Fatalf("shows: North %v, Main %v, all %v", north, main, all)
	}
	if code, _, errOut := runCLI(t, data, "", "sell", north["North Studio"], "A1", "A2", "--pay", "card"); code != 0 {
		t.Fatalf("sell at North: %s", errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "sell", main["Grand"], "D1", "--pay", "card"); code != 0 {
		t.Fatalf("sell at Main: %s", errOut)
	}
	tickets := func(site string) float64 {
		t.Helper()
		code, out, errOut := runCLI(t, data, "", "report", "takings", "--site", site, "--json")
		if code != 0 {
			t.Fatalf("report takings --site %s: %s", site, errOut)
		}
		var rep struct {
			Total map[string]any `json:"total"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err, out)
		}
		n, _ := rep.Total["tickets"].(float64)
		return n
	}
	if n, m := tickets("North"), tickets("Main"); n != 2 || m != 1 {
		t.Fatalf("tickets sold today: North %v, Main %v", n, m)
	}
	if code, out, errOut := runCLI(t, data, "1234\n", "staff", "add", "zed", "--role", "clerk", "--site", "North"); code != 0 || !strings.Contains(out, "at North") {
		t.Fatalf("staff add --site North: exit %d %q %s", code, out, errOut)
	}
	_, out, _ = runCLI(t, data, "", "staff", "list", "--json")
	var staff []map[string]any
	if err := json.Unmarshal([]byte(out), &staff); err != nil || len(staff) != 2 || staff[1]["name"] != "zed" || staff[1]["site"] != "North" || staff[0]["site"] != "all" {
		t.Fatalf("staff list: %q", out)
	}
	if code, out, _ := runCLI(t, data, "", "staff", "site", "zed", "all"); code != 0 || strings.TrimSpace(out) != "zed works at every site." {
		t.Fatalf("staff site zed all: %q", out)
	}
	if code, _, errOut := runCLI(t, data, "", "report", "takings", "--site", "South"); code == 0 || !strings.Contains(errOut, `There is no site "South"; the sites are: Main, North.`) {
		t.Fatalf("--site South: exit %d %q", code, errOut)
	}
}
