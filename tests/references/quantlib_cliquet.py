"""The QuantLib reference of structured_test.cpp's cliquet with local bounds.

QuantLib's AnalyticCliquetEngine prices sum_i max(S_i - m S_{i-1}, 0), each paid at t_i, and takes
no caps or floors. With zero rates and yields, E[S_{i-1}] = S_0 and each period's payment date does
not matter, so a cliquet of returns held within [f, c] is, per unit of notional,
    n f + cliquet(m = 1 + f) / S_0 - cliquet(m = 1 + c) / S_0.
Run with Debian's quantlib-python (QuantLib 1.29): /usr/bin/python3 quantlib_cliquet.py
"""
import QuantLib as ql

today = ql.Date(1, 1, 2026)
ql.Settings.instance().evaluationDate = today
dc = ql.Actual365Fixed()
spot = ql.QuoteHandle(ql.SimpleQuote(100.0))
flat = ql.YieldTermStructureHandle(ql.FlatForward(today, 0.0, dc))
vol = ql.BlackVolTermStructureHandle(ql.BlackConstantVol(today, ql.NullCalendar(), 0.2, dc))
process = ql.BlackScholesMertonProcess(spot, flat, flat, vol)
# Resets every 73 days (0.2 years under Actual/365 Fixed), 8 periods to 1.6 years.
resets = [today + 73 * i for i in range(8)]
maturity = today + 73 * 8


def cliquet(moneyness):
    option = ql.CliquetOption(ql.PercentageStrikePayoff(ql.Option.Call, moneyness), ql.EuropeanExercise(maturity),
                              resets)
    option.setPricingEngine(ql.AnalyticCliquetEngine(process))
    return option.NPV() / 100.0


floor, cap = -0.03, 0.04
print(repr(8 * floor + cliquet(1 + floor) - cliquet(1 + cap)))
