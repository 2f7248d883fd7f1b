package convert

// StreamOfCompoundFile returns a stream of the input's Compound File, for
// the tests of the legacy formats to use as fuzzing seeds.
func StreamOfCompoundFile(in *Input, name string) ([]byte, error) {
	c, err := in.cfb(Limits{}.withDefaults())
	if err != nil {
		return nil, err
	}
	b, ok, err := c.stream(name)
	if !ok && err == nil {
		return nil, formatErr("", "no stream "+name, nil)
	}
	return b, err
}
