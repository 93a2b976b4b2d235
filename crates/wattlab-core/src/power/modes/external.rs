//! `external` (and the drivers' names `cc`, `psna`): the station is awake, asleep or off as a
//! driver commands (a test or the live testbed, paper 000's client-centered agent, paper
//! 001's PSNA mobile). With the PM bit the AP holds while the driver has the station asleep,
//! and sleep waits until the station is idle; without it (paper 000's IP-level emulation)
//! commands act at once, the AP keeps sending and a frame reaching a sleeper is lost.

use crate::power::station::{doze, try_doze, Core, Mode};
use crate::power::{Command, MacView, PowerState, StationEvent};
use crate::Time;

/// Who commands an [`External`](crate::power::PowerMode::External) station's sleep and wake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Driver {
    /// Whoever hosts the station (a test, the live testbed): named `external`.
    Host,
    /// Paper 000's client-centered agent: named `cc` in scenarios and reports.
    Cc,
    /// Paper 001's PSNA mobile, which switches the card off for the residual time: `psna`.
    Psna,
}

/// The rules of a driven station, with the driver's last command.
#[derive(Clone, Copy, Debug)]
pub(crate) struct External {
    /// The driver's last command was wake (and not off).
    driver_awake: bool,
    /// The driver's last command was off.
    driver_off: bool,
}

impl External {
    /// A driven station, awake until its driver says otherwise.
    pub(crate) fn new() -> External {
        External { driver_awake: true, driver_off: false }
    }
}

impl Mode for External {
    fn dozes_by_itself(&self) -> bool {
        false
    }

    /// Set while the driver has the station asleep (the AP then holds its frames).
    fn pm_bit(&self, c: &Core) -> bool {
        c.caps.pm_bit && !self.driver_awake
    }

    fn ap_may_send(&self, c: &Core) -> bool {
        !c.caps.pm_bit || (c.awake && !c.waking && self.driver_awake)
    }

    fn loses_frames_at_rest(&self, c: &Core) -> bool {
        !c.caps.pm_bit
    }

    fn delivers_directly(&self, c: &Core) -> bool {
        !c.caps.pm_bit || self.driver_awake
    }

    fn may_doze(&self, c: &Core) -> bool {
        c.caps.pm_bit && !self.driver_awake
    }

    fn rests_off(&self) -> bool {
        self.driver_off
    }

    fn on_command(&mut self, c: &mut Core, now: Time, cmd: Command, view: MacView) {
        match cmd {
            Command::Wake => {
                self.driver_awake = true;
                self.driver_off = false;
                c.wake(now);
                if c.caps.pm_bit && view.queued > 0 {
                    c.out.push_back(StationEvent::Release);
                }
            }
            Command::Sleep | Command::Off => {
                self.driver_awake = false;
                self.driver_off = cmd == Command::Off;
                if !c.awake && !c.waking {
                    if c.off != self.driver_off {
                        // Already resting: only the radio's state changes.
                        c.off = self.driver_off;
                        let state = if c.off { PowerState::Off } else { PowerState::Doze };
                        c.out.push_back(StationEvent::Power { at: now, state });
                    }
                } else if c.caps.pm_bit {
                    try_doze(self, c, now, view);
                } else if c.awake {
                    doze(self, c, now, view);
                }
            }
        }
    }
}
