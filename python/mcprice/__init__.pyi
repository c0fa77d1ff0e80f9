from os import PathLike
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import pandas as pd

class InputError(Exception):
    message: str
    file: str
    line: int
    column: int
    def __init__(self, message: str, file: str = ..., line: int = ..., column: int = ...) -> None: ...

Book = Union[str, PathLike, pd.DataFrame, Sequence[Mapping[str, Any]]]
Progress = Union[bool, Callable[[int, int], Optional[bool]]]

class Engine:
    options: Dict[str, Any]
    def __init__(
        self,
        market: Union[str, PathLike, Dict[str, Any]],
        backend: str = "auto",
        paths: int = 1_000_000,
        seed: int = 42,
        greeks: bool = False,
        rng: str = "pseudo",
        streams: Optional[int] = None,
        job_cap: Optional[int] = None,
        pool_limit: Optional[int] = None,
        steps: int = 252,
        antithetic: bool = True,
        precision: str = "single",
        threads: Optional[int] = None,
        rqmc_replicates: int = 32,
        graphs: str = "auto",
        batch_window_us: int = 0,
        preload_kernels: bool = True,
    ) -> None: ...
    def price(self, trades: Book, progress: Progress = False) -> pd.DataFrame: ...
    def memory(self) -> Optional[Dict[str, Any]]: ...
    @property
    def backend(self) -> str: ...
    @property
    def device_name(self) -> str: ...
    @property
    def notices(self) -> List[str]: ...
