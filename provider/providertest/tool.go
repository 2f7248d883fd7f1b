package providertest

import (
	"context"
	"encoding/json"

	"github.com/keel-go/keel/tool"
)

// WeatherTool is the tool the adapters' end-to-end tests give an agent:
// "get_weather" takes {"city": "..."} and answers "sunny in <city>", so a
// test can check that the tool's result reached the model's next request.
func WeatherTool() tool.Tool {
	return tool.Tool{
		Name:        "get_weather",
		Description: "Gets the weather of a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		Execute: func(_ context.Context, c tool.Call) (any, error) {
			var in struct{ City string }
			if err := json.Unmarshal(c.Input, &in); err != nil {
				return nil, err
			}
			return "sunny in " + in.City, nil
		},
	}
}
