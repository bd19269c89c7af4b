package main

func (c *cli) serve(args []string) int {
	return c.usageErr("serve is not wired yet")
}
