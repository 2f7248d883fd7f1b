// Package browsertest drives Debian's chromium, headless, from Go tests
// with chromedp: it finds the browser, opens a tab that records what a
// test must check besides the page itself (console errors, uncaught
// exceptions, JavaScript dialogs, every URL requested, downloads), and
// keeps screenshots as test output for people to look at.
//
// A test starts with [New]; without chromium it is skipped with the
// reason, and it fails instead when CI is set, since the test command
// (scripts/test.sh) installs chromium. $KEEL_CHROMIUM names another
// Chrome binary.
//
//	tab := browsertest.New(t, browsertest.Options{})
//	tab.Do("open the page", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("main")))
//	tab.WaitFor("the answer", `document.querySelector(".answer") !== null`)
//	tab.Shot("answered")
//	if errs := tab.ConsoleErrors(); len(errs) != 0 { ... }
//
// Every wait has a deadline and fails the test with what the page shows
// (its text, a screenshot, the console): a test waits on the page's
// state, never for a fixed time.
//
// Screenshots go to "testoutput" in the test's package directory
// ([Options].OutputDir to change it), which .gitignore keeps out of the
// repository.
package browsertest
