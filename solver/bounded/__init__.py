"""Solutions with a proven bound, sooner than the optimal one: the anytime search
(anytime), the windows searched again (shorten), and when IDA* hands over its cores."""
