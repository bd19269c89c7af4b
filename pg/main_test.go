package pg_test

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain runs pg's tests four at a time at least, unless -parallel
// says otherwise, and drops the migrated template's databases
// (testURL) and the plan guard's history once every test is done.
//
// Go's default, one test a processor, suits tests that compute; pg's
// wait on a server: the two fault tests hold a slot each for 10-20 s
// with their own server stopped, during which, on a two-processor
// machine, no contract case could run. Measured there: 72-74 s with
// four, 76-100 s with two, the spread being whether the fault tests
// happened to start together.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(max(4, runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	dropPlanHistory()
	if err := migrated.Drop(); err != nil {
		fmt.Fprintln(os.Stderr, "dropping the test databases:", err)
		code = cmp.Or(code, 1)
	}
	os.Exit(code)
}
